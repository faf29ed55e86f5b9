template<class T> T tw(T x){return x*2;}
inline int il(int x){return x+1;}
struct S { virtual int f(){return 1;} };
int use(int x){ S s; return tw(x)+tw(1.0)+il(x)+s.f(); }
