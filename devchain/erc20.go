package devchain

import (
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/crypto"
)

// The token contract is a minimal ERC-20 hand-assembled here (there is no
// Solidity compiler in this build): this file is its source. It keeps Solidity's
// (and OpenZeppelin's ERC20's) storage layout, so tools that read storage
// directly find what they expect:
//
//	slot 0  mapping(address => uint256) balances
//	        balances[a] is at keccak256(pad32(a) ++ pad32(0))
//	slot 1  mapping(address => mapping(address => uint256)) allowances
//	        allowances[owner][spender] is at
//	        keccak256(pad32(spender) ++ keccak256(pad32(owner) ++ pad32(1)))
//	slot 2  uint256 totalSupply
//
// name, symbol and decimals are constants baked into each token's bytecode.
//
// Memory: 0x00–0x3f is the scratch space for the keccak256 of a mapping key;
// the arguments of the running function are kept at memA, memB and memValue.
const (
	slotBalances    = 0
	slotAllowances  = 1
	slotTotalSupply = 2

	memA     = 0x80 // transfer: from; approve, allowance: owner
	memB     = 0xa0 // transfer: to; approve, allowance: spender
	memValue = 0xc0 // amount; the event's data is read from here
)

// The events, as topic 0 of their logs.
var (
	transferTopic = crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))
	approvalTopic = crypto.Keccak256Hash([]byte("Approval(address,address,uint256)"))
)

// erc20Functions are the contract's functions by signature, in dispatch order.
var erc20Functions = []string{
	"transfer(address,uint256)",
	"balanceOf(address)",
	"transferFrom(address,address,uint256)",
	"approve(address,uint256)",
	"allowance(address,address)",
	"totalSupply()",
	"decimals()",
	"symbol()",
	"name()",
}

// erc20Runtime returns the runtime bytecode of a token with the given name,
// symbol and decimals. Every function reverts, without data, when called with
// ether, with too short arguments or an address argument wider than 20 bytes;
// an unknown selector reverts too (there is no fallback).
func erc20Runtime(name, symbol string, decimals uint8) []byte {
	a := newAssembler()

	// Dispatch: reject ether and calls without a selector, then jump to the
	// function whose selector is the first 4 bytes of the calldata.
	a.op(vm.CALLVALUE).jumpIf("revert")
	a.requireCalldata(0)
	a.push0().op(vm.CALLDATALOAD).push(224).op(vm.SHR)
	for _, sig := range erc20Functions {
		a.op(vm.DUP1).push(crypto.Keccak256([]byte(sig))[:4]).op(vm.EQ).jumpIf(sig)
	}
	a.label("revert").push0().push0().op(vm.REVERT)

	// transfer(to, value): moves value from the caller to to.
	a.label("transfer(address,uint256)").requireCalldata(2)
	a.op(vm.CALLER).store(memA)
	a.addressArg(0).store(memB)
	a.uintArg(1).store(memValue)
	a.moveTokens().returnTrue()

	// balanceOf(owner)
	a.label("balanceOf(address)").requireCalldata(1)
	a.addressArg(0).balanceSlot().op(vm.SLOAD).returnWord()

	// transferFrom(from, to, value): spends the caller's allowance from from,
	// then moves value from from to to.
	a.label("transferFrom(address,address,uint256)").requireCalldata(3)
	a.addressArg(0).store(memA)
	a.addressArg(1).store(memB)
	a.uintArg(2).store(memValue)
	a.spendAllowance().moveTokens().returnTrue()

	// approve(spender, value): sets the caller's allowance for spender.
	a.label("approve(address,uint256)").requireCalldata(2)
	a.op(vm.CALLER).store(memA)
	a.addressArg(0).store(memB)
	a.uintArg(1).store(memValue)
	a.load(memB).op(vm.ISZERO).jumpIf("revert") // no approval of address 0
	a.load(memValue)
	a.load(memB).load(memA).allowanceSlot().op(vm.SSTORE)
	a.emit(approvalTopic).returnTrue()

	// allowance(owner, spender)
	a.label("allowance(address,address)").requireCalldata(2)
	a.addressArg(1).addressArg(0).allowanceSlot().op(vm.SLOAD).returnWord()

	a.label("totalSupply()").push(slotTotalSupply).op(vm.SLOAD).returnWord()
	a.label("decimals()").push(int(decimals)).returnWord()
	a.label("symbol()").returnString(symbol)
	a.label("name()").returnString(name)
	return a.code()
}

// requireCalldata reverts unless the calldata holds a selector and n words.
func (a *assembler) requireCalldata(n int) *assembler {
	return a.push(4 + 32*n).op(vm.CALLDATASIZE).op(vm.LT).jumpIf("revert")
}

// addressArg pushes argument i, reverting if it does not fit in 20 bytes.
func (a *assembler) addressArg(i int) *assembler {
	a.uintArg(i)
	return a.op(vm.DUP1).push(160).op(vm.SHR).jumpIf("revert")
}

// uintArg pushes argument i (a 32-byte word).
func (a *assembler) uintArg(i int) *assembler {
	return a.push(4 + 32*i).op(vm.CALLDATALOAD)
}

// store pops a word into memory at off; load pushes it back.
func (a *assembler) store(off int) *assembler { return a.push(off).op(vm.MSTORE) }
func (a *assembler) load(off int) *assembler  { return a.push(off).op(vm.MLOAD) }

// balanceSlot replaces the address on top of the stack with the storage slot
// of its balance.
func (a *assembler) balanceSlot() *assembler {
	a.push0().op(vm.MSTORE)                     // mem[0:32]  = owner
	a.push(slotBalances).push(32).op(vm.MSTORE) // mem[32:64] = 0
	return a.push(64).push0().op(vm.KECCAK256)  // keccak256(mem[0:64])
}

// allowanceSlot replaces owner (top) and spender (below it) with the storage
// slot of allowances[owner][spender].
func (a *assembler) allowanceSlot() *assembler {
	a.push0().op(vm.MSTORE)                       // mem[0:32]  = owner
	a.push(slotAllowances).push(32).op(vm.MSTORE) // mem[32:64] = 1
	a.push(64).push0().op(vm.KECCAK256)           // inner = keccak256(owner, 1)
	a.push(32).op(vm.MSTORE)                      // mem[32:64] = inner
	a.push0().op(vm.MSTORE)                       // mem[0:32]  = spender
	return a.push(64).push0().op(vm.KECCAK256)    // keccak256(spender, inner)
}

// moveTokens moves memValue from the balance of memA to that of memB, emits
// Transfer(memA, memB, memValue), and reverts if memB is address 0 or the
// balance of memA is smaller than memValue. The debit is written before the
// credit is read, so a transfer to oneself keeps the balance.
func (a *assembler) moveTokens() *assembler {
	a.load(memB).op(vm.ISZERO).jumpIf("revert")
	// balances[from] -= value
	a.load(memA).balanceSlot()                              // slot
	a.op(vm.DUP1, vm.SLOAD)                                 // slot bal
	a.op(vm.DUP1).load(memValue).op(vm.GT).jumpIf("revert") // value > bal
	a.load(memValue).op(vm.SWAP1, vm.SUB)                   // slot bal-value
	a.op(vm.SWAP1, vm.SSTORE)                               //
	// balances[to] += value (cannot overflow: the sum is at most totalSupply)
	a.load(memB).balanceSlot()                        // slot
	a.op(vm.DUP1, vm.SLOAD).load(memValue).op(vm.ADD) // slot bal+value
	a.op(vm.SWAP1, vm.SSTORE)                         //
	return a.emit(transferTopic)
}

// spendAllowance lowers allowances[memA][caller] by memValue, reverting if it
// is smaller. An allowance of 2^256-1 is unlimited and never lowered (as in
// OpenZeppelin's ERC20).
func (a *assembler) spendAllowance() *assembler {
	a.op(vm.CALLER).load(memA).allowanceSlot()              // slot
	a.op(vm.DUP1, vm.SLOAD)                                 // slot allowed
	a.op(vm.DUP1, vm.NOT, vm.ISZERO).jumpIf("unlimited")    // allowed == max
	a.op(vm.DUP1).load(memValue).op(vm.GT).jumpIf("revert") // value > allowed
	a.load(memValue).op(vm.SWAP1, vm.SUB)                   // slot allowed-value
	a.op(vm.SWAP1, vm.SSTORE).jump("spent")                 //
	a.label("unlimited").op(vm.POP, vm.POP)                 //
	return a.label("spent")
}

// emit logs topic with the addresses at memA and memB as topics 1 and 2 and
// the word at memValue as data: Transfer and Approval alike.
func (a *assembler) emit(topic common.Hash) *assembler {
	a.load(memB).load(memA).push(topic)
	return a.push(32).push(memValue).op(vm.LOG3)
}

// returnWord returns the word on top of the stack.
func (a *assembler) returnWord() *assembler {
	a.push0().op(vm.MSTORE)
	return a.push(32).push0().op(vm.RETURN)
}

// returnTrue returns the ABI encoding of bool true.
func (a *assembler) returnTrue() *assembler {
	return a.push(1).returnWord()
}

// returnString returns the ABI encoding of string s (at most 32 bytes): the
// offset 0x20, the length, then the bytes padded to a word.
func (a *assembler) returnString(s string) *assembler {
	if len(s) == 0 || len(s) > 32 {
		panic(fmt.Sprintf("devchain: token string %q must have 1 to 32 bytes", s))
	}
	var word [32]byte
	copy(word[:], s)
	a.push(32).push0().op(vm.MSTORE)
	a.push(len(s)).push(32).op(vm.MSTORE)
	a.push(word[:]).push(64).op(vm.MSTORE)
	return a.push(96).push0().op(vm.RETURN)
}

// balanceKey is the storage slot of balances[owner].
func balanceKey(owner common.Address) common.Hash {
	return crypto.Keccak256Hash(common.LeftPadBytes(owner.Bytes(), 32), common.LeftPadBytes(big.NewInt(slotBalances).Bytes(), 32))
}
