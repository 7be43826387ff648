#!/usr/bin/env bash
# Run every test of op2-rs: format and lint checks, the Rust unit/property
# tests, and the integration tests that compile C/C++ programs against
# include/ and the libraries in target/release.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

step "cargo fmt --check"
cargo fmt --all -- --check

step "build the OP2 libraries (release)"
cargo build --release --workspace

step "cargo clippy (all targets, warnings are errors)"
cargo clippy --workspace --all-targets -- -D warnings

step "tests"
cargo test --workspace

step "all tests passed"
