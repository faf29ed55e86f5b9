package tree

import (
	"crypto/sha256"
	"testing"
)

func TestRewriteRecord(t *testing.T) {
	in := "pkg/a.so,sha256=old,10\n\"pkg/b,c.so\",sha256=x,5\npkg/gone.so,sha256=y,7\npkg-1.0.dist-info/RECORD,,\n"
	sum := sha256.Sum256([]byte("new"))
	changed := map[string]string{
		"pkg/a.so":    recordEntry(sum[:], 3),
		"pkg/gone.so": "",
	}
	out, touched, err := rewriteRecord([]byte(in), func(p string) string { return p }, changed)
	if err != nil {
		t.Fatal(err)
	}
	want := "pkg/a.so,sha256=EVB6Di9eadXfpApiob17buV-a82FxnybhDGzb_8hxDc,3\n\"pkg/b,c.so\",sha256=x,5\npkg-1.0.dist-info/RECORD,,\n"
	if !touched || string(out) != want {
		t.Errorf("rewriteRecord = %v\n%s\nwant\n%s", touched, out, want)
	}
	_, touched, err = rewriteRecord([]byte(in), func(p string) string { return "x/" + p }, changed)
	if err != nil || touched {
		t.Errorf("untouched RECORD: touched=%v err=%v", touched, err)
	}
	if _, _, err := rewriteRecord([]byte("a,\"b\n"), func(p string) string { return p }, changed); err == nil {
		t.Error("malformed RECORD accepted")
	}
}
