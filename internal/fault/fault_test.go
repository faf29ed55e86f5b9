package fault

import (
	"errors"
	"sync"
	"testing"
	"unsafe"

	"github.com/goffload/goffload/internal/test/maptest"
)

func TestCatch(t *testing.T) {
	m := maptest.Truncated(t, make([]byte, 1<<16), 0)
	var sum byte
	err := Catch(func() {
		for _, c := range m {
			sum += c
		}
	})
	var fe *Error
	if !errors.As(err, &fe) {
		t.Fatalf("Catch = %v, want a fault", err)
	}
	if a := uintptr(unsafe.Pointer(unsafe.SliceData(m))); fe.Addr < a || fe.Addr >= a+uintptr(len(m)) {
		t.Errorf("fault at %#x, outside the mapping at %#x", fe.Addr, a)
	}
	// Other panics go on.
	defer func() {
		if r := recover(); r != "other" {
			t.Errorf("recovered %v, want the panic itself", r)
		}
	}()
	Catch(func() { panic("other") })
	t.Error("a panic that is no fault was caught")
}

// sink keeps reads the compiler would otherwise drop.
var sink byte

func TestFirst(t *testing.T) {
	m := maptest.Truncated(t, make([]byte, 1<<16), 0)
	var k First
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			ok := k.Keep(func() {
				if i%2 == 0 {
					sink += m[i*4096]
				}
			})
			if ok != (i%2 == 1) {
				t.Errorf("goroutine %d: Keep = %v", i, ok)
			}
		})
	}
	wg.Wait()
	if !k.Failed() {
		t.Fatal("no fault kept")
	}
	err := Catch(k.Raise)
	var fe *Error
	if !errors.As(err, &fe) {
		t.Fatalf("Raise under Catch = %v, want the fault", err)
	}
	var none First
	if err := Catch(none.Raise); err != nil || none.Failed() {
		t.Errorf("nothing kept: Raise gave %v", err)
	}
}
