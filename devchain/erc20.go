package devchain

import (
	"encoding/binary"

	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/crypto"
)

// The dev chain's tokens are a minimal ERC-20 runtime, hand-assembled here (there
// is no Solidity compiler on Kassa's machines) and placed in the genesis with its
// storage; nothing deploys it. The Go code below is its source. Storage follows
// Solidity's layout, so tools that read storage agree:
//
//	slot 0: mapping(address => uint256) balances   keccak256(pad32(owner) ++ pad32(0))
//	slot 1: mapping(address => mapping(address => uint256)) allowances
//	        keccak256(pad32(spender) ++ keccak256(pad32(owner) ++ pad32(1)))
//	slot 2: uint256 totalSupply
//
// name(), symbol() and decimals() are constants in each token's code. Functions:
// name, symbol, decimals, totalSupply, balanceOf, transfer, allowance, approve and
// transferFrom, with the Transfer and Approval events. It reverts on a call with
// value, an unknown selector, a balance or allowance too small.

// Event topics of the ERC-20 standard.
var (
	transferTopic = crypto.Keccak256([]byte("Transfer(address,address,uint256)"))
	approvalTopic = crypto.Keccak256([]byte("Approval(address,address,uint256)"))
)

const (
	slotBalances    = 0
	slotAllowances  = 1
	slotTotalSupply = 2
)

// asm is a tiny assembler: opcodes, pushes, and labels resolved at the end.
type asm struct {
	code   []byte
	labels map[string]int
	fixups map[int]string // offset of a PUSH2 operand → label
}

func newAsm() *asm { return &asm{labels: map[string]int{}, fixups: map[int]string{}} }

func (a *asm) op(ops ...vm.OpCode) *asm {
	for _, o := range ops {
		a.code = append(a.code, byte(o))
	}
	return a
}

// push pushes b (1..32 bytes) with the shortest PUSHn.
func (a *asm) push(b []byte) *asm {
	for len(b) > 1 && b[0] == 0 {
		b = b[1:]
	}
	if len(b) == 1 && b[0] == 0 {
		return a.op(vm.PUSH0)
	}
	a.code = append(a.code, byte(vm.PUSH1)+byte(len(b)-1))
	a.code = append(a.code, b...)
	return a
}

func (a *asm) pushInt(v uint64) *asm {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], v)
	return a.push(b[:])
}

// pushLabel pushes the address of a label (PUSH2, patched in code()).
func (a *asm) pushLabel(name string) *asm {
	a.code = append(a.code, byte(vm.PUSH2), 0, 0)
	a.fixups[len(a.code)-2] = name
	return a
}

func (a *asm) label(name string) *asm {
	a.labels[name] = len(a.code)
	return a.op(vm.JUMPDEST)
}

func (a *asm) bytes() []byte {
	for at, name := range a.fixups {
		binary.BigEndian.PutUint16(a.code[at:], uint16(a.labels[name]))
	}
	return a.code
}

func selector(sig string) []byte { return crypto.Keccak256([]byte(sig))[:4] }

// arg loads the i-th 32-byte call argument.
func (a *asm) arg(i uint64) *asm { return a.pushInt(4 + 32*i).op(vm.CALLDATALOAD) }

// addressArg loads the i-th argument as an address (the upper 96 bits cleared).
func (a *asm) addressArg(i uint64) *asm {
	a.arg(i)
	mask := make([]byte, 20)
	for j := range mask {
		mask[j] = 0xff
	}
	return a.push(mask).op(vm.AND)
}

// balanceSlot replaces the address on top of the stack with its balance's slot.
func (a *asm) balanceSlot() *asm {
	return a.op(vm.PUSH0, vm.MSTORE).pushInt(slotBalances).pushInt(0x20).op(vm.MSTORE).
		pushInt(0x40).op(vm.PUSH0, vm.KECCAK256)
}

// allowanceSlot replaces [owner, spender] (spender on top) with the allowance's slot.
func (a *asm) allowanceSlot() *asm {
	a.op(vm.SWAP1, vm.PUSH0, vm.MSTORE).pushInt(slotAllowances).pushInt(0x20).op(vm.MSTORE).
		pushInt(0x40).op(vm.PUSH0, vm.KECCAK256)
	return a.pushInt(0x20).op(vm.MSTORE, vm.PUSH0, vm.MSTORE).pushInt(0x40).op(vm.PUSH0, vm.KECCAK256)
}

// returnWord returns the word on top of the stack.
func (a *asm) returnWord() *asm {
	return a.op(vm.PUSH0, vm.MSTORE).pushInt(0x20).op(vm.PUSH0, vm.RETURN)
}

// returnString returns s (at most 32 bytes) ABI-encoded.
func (a *asm) returnString(s string) *asm {
	word := make([]byte, 32)
	copy(word, s)
	a.pushInt(0x20).op(vm.PUSH0, vm.MSTORE).pushInt(uint64(len(s))).pushInt(0x20).op(vm.MSTORE)
	a.code = append(a.code, byte(vm.PUSH32))
	a.code = append(a.code, word...)
	return a.pushInt(0x40).op(vm.MSTORE).pushInt(0x60).op(vm.PUSH0, vm.RETURN)
}

// move moves amt from from to to, with [from, to, amt] on the stack (amt on top),
// reverting when from's balance is short, and logs Transfer. It leaves nothing.
func (a *asm) move() *asm {
	a.op(vm.DUP3).balanceSlot()                                          // from to amt fs
	a.op(vm.DUP1, vm.SLOAD, vm.DUP1, vm.DUP4, vm.GT).pushLabel("revert") // from to amt fs fb (amt>fb) revert
	a.op(vm.JUMPI)                                                       // from to amt fs fb
	a.op(vm.DUP3, vm.SWAP1, vm.SUB, vm.SWAP1, vm.SSTORE)                 // from to amt
	a.op(vm.DUP2).balanceSlot()                                          // from to amt ts
	a.op(vm.DUP1, vm.SLOAD, vm.DUP3, vm.ADD, vm.SWAP1, vm.SSTORE)        // from to amt
	a.op(vm.PUSH0, vm.MSTORE, vm.SWAP1).push(transferTopic)              // to from topic
	return a.pushInt(0x20).op(vm.PUSH0, vm.LOG3)
}

// tokenCode assembles the runtime code of a token.
func tokenCode(name, symbol string, decimals uint64) []byte {
	a := newAsm()
	a.op(vm.CALLVALUE).pushLabel("revert").op(vm.JUMPI)
	a.pushInt(4).op(vm.CALLDATASIZE, vm.LT).pushLabel("revert").op(vm.JUMPI) // size < 4
	a.op(vm.PUSH0, vm.CALLDATALOAD).pushInt(0xe0).op(vm.SHR)
	fns := []string{"name()", "symbol()", "decimals()", "totalSupply()", "balanceOf(address)", "transfer(address,uint256)",
		"allowance(address,address)", "approve(address,uint256)", "transferFrom(address,address,uint256)"}
	for _, f := range fns {
		a.op(vm.DUP1).push(selector(f)).op(vm.EQ).pushLabel(f).op(vm.JUMPI)
	}
	a.label("revert").op(vm.PUSH0, vm.PUSH0, vm.REVERT)

	a.label("name()").returnString(name)
	a.label("symbol()").returnString(symbol)
	a.label("decimals()").pushInt(decimals).returnWord()
	a.label("totalSupply()").pushInt(slotTotalSupply).op(vm.SLOAD).returnWord()
	a.label("balanceOf(address)").addressArg(0).balanceSlot().op(vm.SLOAD).returnWord()
	a.label("transfer(address,uint256)").op(vm.CALLER).addressArg(0).arg(1).move().pushInt(1).returnWord()
	a.label("allowance(address,address)").addressArg(0).addressArg(1).allowanceSlot().op(vm.SLOAD).returnWord()
	a.label("approve(address,uint256)").op(vm.CALLER).addressArg(0).allowanceSlot().arg(1).op(vm.SWAP1, vm.SSTORE)
	a.arg(1).op(vm.PUSH0, vm.MSTORE).addressArg(0).op(vm.CALLER).push(approvalTopic).pushInt(0x20).op(vm.PUSH0, vm.LOG3)
	a.pushInt(1).returnWord()
	a.label("transferFrom(address,address,uint256)").addressArg(0).op(vm.CALLER).allowanceSlot() // as
	a.op(vm.DUP1, vm.SLOAD).arg(2).op(vm.DUP2, vm.DUP2, vm.GT).pushLabel("revert").op(vm.JUMPI)  // as al amt
	a.op(vm.SWAP1, vm.SUB, vm.SWAP1, vm.SSTORE)
	a.addressArg(0).addressArg(1).arg(2).move().pushInt(1).returnWord()
	return a.bytes()
}
