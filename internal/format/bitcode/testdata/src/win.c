__declspec(dllexport) int win_exported(void) { return 1; }
int __stdcall std_fn(int a) { return a; }
int __fastcall fast_fn(int a, int b) { return a + b; }
int win_global = 2;
__declspec(selectany) int sel_any = 3;
#pragma comment(lib, "foo")
