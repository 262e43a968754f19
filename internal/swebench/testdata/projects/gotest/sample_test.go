// Package sample has tests whose outcomes are fixed by how they are written.
package sample

import "testing"

func TestPasses(t *testing.T) {}

func TestFails(t *testing.T) { t.Fatal("always fails") }

func TestSkipped(t *testing.T) { t.Skip("not here") }

func TestTable(t *testing.T) {
	for _, name := range []string{"good case", "bad case"} {
		t.Run(name, func(t *testing.T) {
			if name == "bad case" {
				t.Error("bad")
			}
		})
	}
}
