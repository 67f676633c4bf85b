#!/bin/sh
# Fetches OpenZeppelin's compiled ERC20PresetFixedSupply (the standard ERC-20
# of @openzeppelin/contracts 4.9.6, MIT) from npm and keeps its ABI and
# creation bytecode in ERC20PresetFixedSupply.json beside this script.
# Run from this directory: sh fetch.sh (needs npm and node).
# The 4.9 line ships compiled artifacts (build/contracts/*.json); 5.x does not.
set -eu
version=4.9.6
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "@openzeppelin/contracts@$version" >/dev/null && tar xzf openzeppelin-contracts-$version.tgz)
node -e '
const a = require(process.argv[1] + "/package/build/contracts/ERC20PresetFixedSupply.json");
const out = {package: "@openzeppelin/contracts@" + process.argv[2], license: "MIT",
  contractName: a.contractName, sourceName: a.sourceName, abi: a.abi, bytecode: a.bytecode};
process.stdout.write(JSON.stringify(out, null, 1) + "\n");
' "$tmp" "$version" > ERC20PresetFixedSupply.json
