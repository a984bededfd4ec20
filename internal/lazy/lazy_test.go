package lazy

import "testing"

func TestRegexpCompilesOnceOnFirstUse(t *testing.T) {
	re := Regexp(`^a+$`)
	first := re()
	if !first.MatchString("aaa") || first.MatchString("ab") {
		t.Fatalf("%s matched wrongly", first)
	}
	if re() != first {
		t.Fatal("the expression was compiled again")
	}
}

func TestRegexpPanicsOnFirstUseOfABadExpression(t *testing.T) {
	re := Regexp(`(`) // building it must not panic: only using it does
	defer func() {
		if recover() == nil {
			t.Fatal("a bad expression compiled")
		}
	}()
	re()
}
