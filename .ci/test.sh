#!/usr/bin/env bash
# The README's test command: formatting, lints, every registered experiment in --quick mode, every
# Rust test (unit, integration, doc), the Python package's pytest suite (with every example of the
# README and the user guide, python/tests/test_examples.py), and the user guide's strict build.
# Ends with one summary line "tests: N passed, M failed". Each stage prints the seconds it took.
#
# What it installs: Rust crates into target/ (cargo), and Python packages into the project's own
# virtual environment .venv/ (python/requirements-test.txt: maturin, numpy, scipy, pytest, and
# gymnasium, ray and coco-experiment for the optional integrations; MkDocs for the user guide, from
# docs/requirements.txt); nothing into the system Python.
set -euo pipefail
cd "$(dirname "$0")/.."

stage_start=$SECONDS
stage() {
    if [ -n "${stage_name:-}" ]; then
        echo "   (${stage_name}: $((SECONDS - stage_start)) s)"
    fi
    stage_name=$1
    stage_start=$SECONDS
    echo "== $1"
}

stage "cargo fmt --check"
cargo fmt --all --check
# The ci profile (Cargo.toml) is shared by every build below, and every build sees the same
# features (cargo unifies features over the packages a command selects: the whole workspace here,
# and python/Cargo.toml asks for the same ones when maturin builds the extension alone), so the
# dependencies compile once. Clippy's proc-macros and build scripts are built in that profile too.
stage "cargo clippy -D warnings"
cargo clippy --profile ci --workspace --all-targets --locked -- -D warnings
stage "cargo build (every test, and the gradfree binary they use)"
cargo test --profile ci --workspace --locked --no-run
drift=$(comm -23 \
    <(cargo tree --locked -p gradfree-python -e normal,build -f '{p} {f}' --prefix none | sed 's/ (\*)$//' | sort -u) \
    <(cargo tree --locked --workspace -e normal,build,dev -f '{p} {f}' --prefix none | sed 's/ (\*)$//' | sort -u))
if [ -n "$drift" ]; then
    echo "warning: the Python extension's features differ from the workspace's, so maturin will"
    echo "rebuild these and everything above them (align python/Cargo.toml):"
    echo "$drift"
fi
stage "Python: virtual environment .venv, packages of python/requirements-test.txt"
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
export PIP_DISABLE_PIP_VERSION_CHECK=1
.venv/bin/python -m pip install --quiet -r python/requirements-test.txt
stage "Python: build the extension into .venv (maturin develop, ci profile)"
VIRTUAL_ENV="$PWD/.venv" .venv/bin/maturin develop --quiet --profile ci --locked --manifest-path python/Cargo.toml
# The Python package in .venv is the interpreter of ingo-rl's rollouts (python -m gradfree.rl),
# for the quick experiments and for the CLI test that runs them.
export GRADFREE_PYTHON="$PWD/.venv/bin/python"
stage "gradfree reproduce all --quick"
target/ci/gradfree reproduce all --quick --out target/reproduce-quick
stage "cargo test (unit, integration and doctests)"
log=$(mktemp)
status=0
cargo test --profile ci --workspace --locked 2>&1 | tee "$log" || status=$?
passed=$(grep -E '^test result:' "$log" | sed -E 's/.* ([0-9]+) passed.*/\1/' | awk '{s+=$1} END {print s+0}')
failed=$(grep -E '^test result:' "$log" | sed -E 's/.* ([0-9]+) failed.*/\1/' | awk '{s+=$1} END {print s+0}')
rm -f "$log"

stage "Python: pytest"
pylog=$(mktemp)
.venv/bin/python -m pytest -q python/tests 2>&1 | tee "$pylog" || status=$?
py_passed=$( (grep -Eo '[0-9]+ passed' "$pylog" || true) | awk '{s+=$1} END {print s+0}')
py_failed=$( (grep -Eo '[0-9]+ (failed|errors?)' "$pylog" || true) | awk '{s+=$1} END {print s+0}')
rm -f "$pylog"
stage "Rust API reference: cargo doc (a broken intra-doc link fails)"
RUSTDOCFLAGS="-D warnings" cargo doc --profile ci --workspace --no-deps --locked --quiet || { status=1; failed=$((failed + 1)); }
stage "user guide: mkdocs build --strict (a broken link or reference fails)"
NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict --quiet --site-dir target/site || { status=1; py_failed=$((py_failed + 1)); }
stage "summary"
passed=$((passed + py_passed))
failed=$((failed + py_failed))
echo "tests: ${passed} passed, ${failed} failed"
if [ "$status" -ne 0 ] || [ "$failed" -ne 0 ] || [ "$passed" -eq 0 ]; then
    exit 1
fi
