# grail: `make run` checks a bundled example and serves the demo; `make test` runs every test.
# Each step skips work already done, so a warm machine is fast.
SHELL := /bin/bash
.DEFAULT_GOAL := help
export CARGO_TERM_COLOR ?= never

.PHONY: help run test test-rust test-db test-python test-js test-browser deps deps-rust deps-browser build-cli bench fuzz lint dist wheel

help:
	@echo "make run      build the CLI, check a bundled example, serve the web demo on localhost"
	@echo "make test     install what tests need, run Rust, database, Python, JS/Node and browser tests"
	@echo "make test-db  the database tests against PostgreSQL and MariaDB, started and stopped for them"
	@echo "make bench    benchmarks (not part of make test)"
	@echo "make dist     the abi3 wheel (maturin build), the npm package and the CLI, into dist/"

build-cli:
	cargo build --release -p grail-cli

run: build-cli
	./target/release/grail check examples/lost-update.edn || true
	@bash scripts/serve-demo.sh

test: test-rust test-db test-python test-js test-browser
	@echo "make test: all suites passed"

test-rust:
	cargo fmt --all -- --check
	cargo test --workspace --release

# Installs and starts PostgreSQL and MariaDB on 127.0.0.1 (scripts/db-servers.sh), stops them after.
test-db:
	bash scripts/test-db.sh

test-python:
	bash scripts/test-python.sh

test-js: deps-wasm
	bash scripts/test-js.sh

test-browser: deps-browser deps-wasm
	bash scripts/test-browser.sh

deps-wasm:
	bash scripts/deps-wasm.sh

deps-browser:
	bash scripts/deps-browser.sh

bench:
	bash scripts/bench.sh

# What gets published: the Python wheel (grail-isolation, abi3), the npm package, the CLI.
dist:
	bash scripts/dist.sh

wheel: dist

fuzz:
	bash scripts/fuzz.sh
