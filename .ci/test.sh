#!/usr/bin/env bash
# The README's test command: formatting, lints, every registered experiment in --quick mode, every
# Rust test (unit, integration, doc), and the Python package's pytest suite. Ends with one summary line "tests: N passed, M failed".
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== cargo fmt --check"
cargo fmt --all --check
echo "== cargo clippy -D warnings"
cargo clippy --workspace --all-targets --locked -- -D warnings
echo "== gradfree reproduce all --quick"
cargo run --profile test --locked -q -- reproduce all --quick --out target/reproduce-quick
echo "== cargo test (unit, integration and doctests)"
log=$(mktemp)
status=0
cargo test --workspace --locked 2>&1 | tee "$log" || status=$?
passed=$(grep -E '^test result:' "$log" | sed -E 's/.* ([0-9]+) passed.*/\1/' | awk '{s+=$1} END {print s+0}')
failed=$(grep -E '^test result:' "$log" | sed -E 's/.* ([0-9]+) failed.*/\1/' | awk '{s+=$1} END {print s+0}')
rm -f "$log"

echo "== Python package: build with maturin, run pytest"
export PIP_ROOT_USER_ACTION=ignore
python3 -m pip install --quiet --disable-pip-version-check maturin numpy scipy pytest ray coco-experiment
python3 -m pip install --quiet --disable-pip-version-check ./python
pylog=$(mktemp)
python3 -m pytest -q python/tests 2>&1 | tee "$pylog" || status=$?
py_passed=$( (grep -Eo '[0-9]+ passed' "$pylog" || true) | awk '{s+=$1} END {print s+0}')
py_failed=$( (grep -Eo '[0-9]+ (failed|errors?)' "$pylog" || true) | awk '{s+=$1} END {print s+0}')
rm -f "$pylog"
passed=$((passed + py_passed))
failed=$((failed + py_failed))
echo "tests: ${passed} passed, ${failed} failed"
if [ "$status" -ne 0 ] || [ "$failed" -ne 0 ] || [ "$passed" -eq 0 ]; then
    exit 1
fi
