# Thin wrapper over meson. `make run` and `make test` are the two commands
# of the README; everything else is a convenience.
BUILD      ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 30
FUZZ_RUNS ?= 100000
FUZZ_CAP ?= 300
MESON_TEST_ARGS ?= --print-errorlogs

.PHONY: all deps build asan run test test-plain test-asan fuzz fuzz-smoke bench report install clean format format-check

all: build

deps:
	@sh scripts/install-deps.sh

$(BUILD)/build.ninja:
	meson setup $(BUILD)

$(ASAN_BUILD)/build.ninja:
	meson setup $(ASAN_BUILD) -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug

$(FUZZ_BUILD)/build.ninja:
	CC=clang meson setup $(FUZZ_BUILD) -Dfuzz=true -Db_lundef=false -Dbuildtype=debugoptimized

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

asan: deps $(ASAN_BUILD)/build.ninja
	ninja -C $(ASAN_BUILD)

# Build, start sddsd and a demo of two separate application processes.
run: build
	sh scripts/demo.sh $(BUILD)

test-plain: build
	meson test -C $(BUILD) $(MESON_TEST_ARGS)

test-asan: asan
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		meson test -C $(ASAN_BUILD) $(MESON_TEST_ARGS) --no-suite slow

# The whole suite: the format check, normal build, sanitizer build, a short fuzz campaign.
test: format-check test-plain test-asan fuzz-smoke

# Every C source and header of the tree in the style of .clang-format.
format: deps
	git ls-files '*.c' '*.h' | xargs clang-format -i

format-check: deps
	git ls-files '*.c' '*.h' | xargs clang-format --dry-run -Werror

# CI's budget: FUZZ_RUNS executions of every target, each capped at FUZZ_CAP seconds.
fuzz-smoke: deps $(FUZZ_BUILD)/build.ninja
	ninja -C $(FUZZ_BUILD)
	sh scripts/fuzz.sh -n $(FUZZ_RUNS) $(FUZZ_BUILD) $(FUZZ_CAP)

# Longer fuzzing: make fuzz FUZZ_SECONDS=600; FUZZ_MERGE=1 merges new coverage into tests/fuzz/corpus/.
fuzz: deps $(FUZZ_BUILD)/build.ninja
	ninja -C $(FUZZ_BUILD)
	sh scripts/fuzz.sh $(if $(filter 1,$(FUZZ_MERGE)),-m) $(FUZZ_BUILD) $(FUZZ_SECONDS)

bench: build
	$(BUILD)/tools/sdds-bench/sdds-bench local

# Every benchmark and the peers, one Markdown report with plots (docs/perf-report.md).
# Root for the network namespaces and sdds-trace; about 11 minutes on 2 CPUs. REPORT_ARGS=--quick: a smoke run.
REPORT_DIR ?= docs/report
report: build
	$(BUILD)/tools/sdds-bench/sdds-bench report --out $(REPORT_DIR) $(REPORT_ARGS)

install: build
	meson install -C $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
