// g++ puts inline constructors and destructors in COMDAT groups named by
// local aliases (_ZN1SC5Ev, _ZN1SD5Ev); llvm-objcopy drops GRP_COMDAT there.
struct S {
	S() : v(1) {}
	virtual ~S() {}
	int v;
};
int use() { S s; return s.v; }
