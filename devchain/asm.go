package devchain

import (
	"fmt"

	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/core/vm/program"
)

// assembler is go-ethereum's EVM bytecode builder (core/vm/program) plus named
// jump labels, which the builder lacks: a jump to a label pushes a PUSH2
// placeholder that code() patches with the label's offset once every label is
// placed, so jumps may go forward.
type assembler struct {
	*program.Program
	labels map[string]int // label → offset of its JUMPDEST
	fixups map[int]string // offset of a PUSH2 immediate → label it must hold
}

// newAssembler returns an empty program.
func newAssembler() *assembler {
	return &assembler{
		Program: program.New(),
		labels:  map[string]int{},
		fixups:  map[int]string{},
	}
}

// label places the jump destination name here. Each name is placed once.
func (a *assembler) label(name string) *assembler {
	if _, dup := a.labels[name]; dup {
		panic(fmt.Sprintf("devchain: label %q placed twice", name))
	}
	a.labels[name] = a.Size()
	a.Op(vm.JUMPDEST)
	return a
}

// pushLabel pushes the offset of label name (two bytes, filled in by code).
func (a *assembler) pushLabel(name string) *assembler {
	a.Op(vm.PUSH2)
	a.fixups[a.Size()] = name
	a.Append([]byte{0, 0})
	return a
}

// jump jumps to label name.
func (a *assembler) jump(name string) *assembler {
	a.pushLabel(name)
	a.Op(vm.JUMP)
	return a
}

// jumpIf pops a condition and jumps to label name when it is not zero.
func (a *assembler) jumpIf(name string) *assembler {
	a.pushLabel(name)
	a.Op(vm.JUMPI)
	return a
}

// op appends opcodes (Program.Op returning the assembler, for chaining).
func (a *assembler) op(ops ...vm.OpCode) *assembler {
	a.Op(ops...)
	return a
}

// push pushes a constant: an int, a byte slice or a hash (see Program.Push).
func (a *assembler) push(v any) *assembler {
	a.Push(v)
	return a
}

// push0 pushes zero with the one-byte PUSH0.
func (a *assembler) push0() *assembler {
	a.Push0()
	return a
}

// code returns the bytecode with every label reference filled in. It panics on
// a reference to a label that was never placed: the program is built from
// constants at start-up, so that is a bug here, not an input error.
func (a *assembler) code() []byte {
	code := append([]byte(nil), a.Bytes()...)
	for at, name := range a.fixups {
		dest, ok := a.labels[name]
		if !ok {
			panic(fmt.Sprintf("devchain: jump to unknown label %q", name))
		}
		if dest > 0xffff {
			panic("devchain: program too large for PUSH2 jump offsets")
		}
		code[at], code[at+1] = byte(dest>>8), byte(dest)
	}
	return code
}
