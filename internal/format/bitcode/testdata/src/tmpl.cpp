#include <stddef.h>
template <typename T> T twice(T x) { return x + x; }
template int twice<int>(int);
inline int inl(int x) { return x * 3; }
struct Base { virtual ~Base(); virtual int f() { return 1; } };
Base::~Base() {}
struct D : Base { int f() override { return 2; } };
namespace ns { int var = 7; thread_local int tl = 3; static int hidden_static = 4; int use() { return hidden_static + tl; } }
int user() { D d; return d.f() + inl(2) + twice(1.0) + twice<long>(3); }
struct S { static int member; };
int S::member = 5;
extern "C" int c_func(void) { return 1; }
static int (*fp)(void) = c_func;
__attribute__((used)) static int keep_me = 9;
__attribute__((constructor)) static void ctor(void) {}
__attribute__((section("llvm.metadata"))) int in_md_section = 1;
int get() { return fp(); }
