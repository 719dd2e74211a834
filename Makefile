# trainplan: GNU Make, C17, gcc, OpenMP. `make run` and `make test` install
# what is missing (Debian packages), build and run. See README.md.
#   make [all]            build ./trainplan and libtrainplan.a
#   make run              deps + build + the default job
#   make test             deps + unit, CLI and bad-input tests, then all again
#                         under AddressSanitizer and UBSan; each run ends
#                         "N passed, N failed, N skipped" (tests/summary.sh)
#   make check            the same, once, without deps or sanitizers
#   make update-golden    rewrite tests/data/golden/* (refused while a unit
#                         test fails; says which numbers moved)
#   make bench            predictor and search benchmarks (figures, no asserts)
#   make fuzz             libFuzzer on every parser, FUZZ_SECONDS each (60);
#                         make fuzz-smoke: 4 s each (CI)
#   make memcheck         valgrind memcheck on predict, search, sweep, validate and errors
#   make validate         the fidelity gate: ../shared/data/runs-dev.csv against
#                         bench/validate-baseline.json (fails when worse;
#                         skipped without the data, failed when CI=true)
#   make validate-baseline  rewrite bench/validate-baseline.json from today's
#                         figures (README "The fidelity gate" says when)
#   make install PREFIX=/usr/local
#   make SANITIZE=address,undefined ...   sanitizer build (in build/san)
#   make DEVELOPER=1      -Werror (CI)
#   make V=1              show commands

CC       ?= gcc
CFLAGS   ?= -O2 -g
PREFIX   ?= /usr/local
WARN      = -Wall -Wextra -Wshadow -Wundef -Wwrite-strings -Wstrict-prototypes \
            -Wmissing-prototypes -Wformat=2 -Wvla -Wdouble-promotion
PKG_LIBS  = libconfig jansson cairo
OPENMP   ?= -fopenmp
CAIRO_CFLAGS := $(shell pkg-config --cflags cairo fontconfig 2>/dev/null || echo -I/usr/include/cairo)
ALL_CFLAGS  = -std=c17 -D_POSIX_C_SOURCE=200809L -I. $(OPENMP) $(WARN) $(CFLAGS)
ALL_LDFLAGS = $(OPENMP) $(LDFLAGS)
LDLIBS     += -lconfig -lcsv -ljansson -lgsl -lgslcblas -lcairo -lfontconfig -lm

ifdef DEVELOPER
ALL_CFLAGS += -Werror
endif
ifdef SANITIZE
BUILD       ?= build/san
ALL_CFLAGS  += -fsanitize=$(SANITIZE) -fno-sanitize-recover=all -fno-omit-frame-pointer
ALL_LDFLAGS += -fsanitize=$(SANITIZE)
PROG        ?= $(BUILD)/trainplan
else
BUILD       ?= build
PROG        ?= trainplan
endif

ifneq ($(V),1)
QUIET_CC  = @echo '   ' CC $@;
QUIET_AR  = @echo '   ' AR $@;
QUIET_LD  = @echo '   ' LINK $@;
QUIET_GEN = @echo '   ' GEN $@;
endif

LIB_SRC   = $(wildcard common/*.c spaces/*.c hardware/*.c predictor/*.c \
                       calibrate/*.c fidelity/*.c search/*.c results/*.c \
                       sweep/*.c)
CLI_SRC   = $(wildcard cli/*.c)
UNIT_SRC  = $(wildcard tests/unit/*.c)
MODEL_CFG = $(sort $(wildcard spaces/models/*.cfg))
SYSTEM_CFG = $(sort $(wildcard hardware/systems/*.cfg))
SCEN_CFG  = $(sort $(wildcard spaces/scenarios/*.cfg))
STACK_CFG = $(sort $(wildcard spaces/stacks/*.cfg))
GEN_SRC   = $(BUILD)/gen/model_presets.c $(BUILD)/gen/hw_presets.c \
            $(BUILD)/gen/scenario_presets.c $(BUILD)/gen/stack_presets.c

LIB_OBJ   = $(LIB_SRC:%.c=$(BUILD)/%.o) $(GEN_SRC:.c=.o)
CLI_OBJ   = $(CLI_SRC:%.c=$(BUILD)/%.o)
UNIT_OBJ  = $(UNIT_SRC:%.c=$(BUILD)/%.o)
LIB       = $(BUILD)/libtrainplan.a
UNIT      = $(BUILD)/tests/unit-tests
BENCH     = $(BUILD)/bench/bench-predict

DEB_PKGS  = gcc make pkg-config libconfig-dev libcsv-dev libjansson-dev libcriterion-dev \
            libgsl-dev libcairo2-dev libopenmpi-dev openmpi-bin

.PHONY: all run test check unit cli-test bench deps install clean fuzz completion \
        fuzz-smoke fuzz-bins fuzz-deps memcheck validate update-golden \
        readme-fidelity mutate validate-baseline
.DELETE_ON_ERROR:

all: $(PROG)

$(PROG): $(CLI_OBJ) $(LIB)
	$(QUIET_LD)$(CC) $(ALL_LDFLAGS) -o $@ $(CLI_OBJ) $(LIB) $(LDLIBS)

$(LIB): $(LIB_OBJ)
	$(QUIET_AR)rm -f $@ && $(AR) rcs $@ $^

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

# Open MPI when mpicc is there (make deps installs it): only sweep/mpi.c
# includes mpi.h; the same binary runs single-process without mpirun
MPI_CFLAGS := $(shell mpicc --showme:compile 2>/dev/null)
MPI_LIBS   := $(shell mpicc --showme:link 2>/dev/null)
ifneq ($(MPI_LIBS),)
$(BUILD)/sweep/mpi.o: ALL_CFLAGS += $(MPI_CFLAGS) -DTRAINPLAN_MPI
LDLIBS += $(MPI_LIBS)
endif

# cairo's headers live in their own directory (pkg-config)
$(BUILD)/results/chart.o: ALL_CFLAGS += $(CAIRO_CFLAGS)

$(BUILD)/gen/%.o: $(BUILD)/gen/%.c
	$(QUIET_CC)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/gen/model_presets.c: $(MODEL_CFG) common/embed.sh
	@mkdir -p $(dir $@)
	$(QUIET_GEN)sh common/embed.sh model_presets $(MODEL_CFG) > $@
$(BUILD)/gen/hw_presets.c: $(SYSTEM_CFG) common/embed.sh
	@mkdir -p $(dir $@)
	$(QUIET_GEN)sh common/embed.sh hw_presets $(SYSTEM_CFG) > $@
$(BUILD)/gen/scenario_presets.c: $(SCEN_CFG) common/embed.sh
	@mkdir -p $(dir $@)
	$(QUIET_GEN)sh common/embed.sh scenario_presets $(SCEN_CFG) > $@
$(BUILD)/gen/stack_presets.c: $(STACK_CFG) common/embed.sh
	@mkdir -p $(dir $@)
	$(QUIET_GEN)sh common/embed.sh stack_presets $(STACK_CFG) > $@

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(UNIT_OBJ:.o=.d)

# ---- set-up: Debian packages, installed only when missing ----
deps:
	@missing=; for p in $(DEB_PKGS); do \
	    dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	    echo "installing:$$missing"; \
	    sudo=; [ "$$(id -u)" = 0 ] || sudo=sudo; \
	    $$sudo apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq $$missing; \
	fi

run: deps
	@$(MAKE) --no-print-directory all
	./$(PROG)

# ---- tests ----
$(UNIT): $(UNIT_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(QUIET_LD)$(CC) $(ALL_LDFLAGS) -o $@ $(UNIT_OBJ) $(LIB) -lcriterion $(LDLIBS)

# ../shared/data (tests that need it skip without it, fail when CI=true)
TRAINPLAN_SHARED ?= $(CURDIR)/../shared
export TRAINPLAN_SHARED
UNIT_TAP    = $(BUILD)/tests/unit.tap
CLI_RESULTS = $(BUILD)/tests/cli.results

unit: $(UNIT)
	./$(UNIT) --jobs 2

cli-test: $(PROG)
	TRAINPLAN=$(CURDIR)/$(PROG) sh tests/cli/run.sh

# both, then one count of the two: each failure and skip with its reason,
# and last "N passed, N failed, N skipped"
check: $(UNIT) $(PROG)
	@rm -f $(UNIT_TAP) $(CLI_RESULTS); \
	echo './$(UNIT) --jobs 2'; \
	./$(UNIT) --jobs 2 --tap=$(UNIT_TAP); u=$$?; \
	echo 'TRAINPLAN=$(CURDIR)/$(PROG) sh tests/cli/run.sh'; \
	TRAINPLAN=$(CURDIR)/$(PROG) T_RESULTS=$(CURDIR)/$(CLI_RESULTS) \
	    sh tests/cli/run.sh; \
	echo '== summary ($(BUILD))'; \
	sh tests/summary.sh --unit-exit $$u $(UNIT_TAP) $(CLI_RESULTS)

# golden files change only with every unit test passing; run.sh says which
# numbers moved (README "Tests": how a golden change is justified)
update-golden: $(UNIT) $(PROG)
	TRAINPLAN=$(CURDIR)/$(PROG) UNIT_TESTS=$(CURDIR)/$(UNIT) UPDATE_GOLDEN=1 \
	    sh tests/cli/run.sh

test: deps
	@$(MAKE) --no-print-directory deps DEB_PKGS=zsh
	@$(MAKE) --no-print-directory check
	@echo '== again under AddressSanitizer and UndefinedBehaviorSanitizer =='
	@ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	    $(MAKE) --no-print-directory SANITIZE=address,undefined check

# ---- benchmarks (figures only) ----
$(BENCH): $(BUILD)/bench/bench_predict.o $(LIB)
	$(QUIET_LD)$(CC) $(ALL_LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

bench: deps $(BENCH) $(PROG)
	./$(BENCH)
	TRAINPLAN=./$(PROG) sh bench/search.sh
	TRAINPLAN=./$(PROG) sh bench/sweep.sh

# ---- fidelity gate: validate against published runs (needs ../shared/data) ----
RUNS     ?= $(TRAINPLAN_SHARED)/data/runs-dev.csv
BASELINE ?= bench/validate-baseline.json

# Every source's rows, MAPE, bias, memory MAPE, OOM agreement and ranking,
# and the overall figures, each against its tolerance (fidelity/fidelity.h).
validate: deps all
	@$(MAKE) --no-print-directory deps DEB_PKGS=jq
	@if [ ! -f "$(RUNS)" ]; then \
	    if [ "$$CI" = true ]; then \
	        echo "validate: $(RUNS) absent: CI=true needs the shared data"; exit 1; fi; \
	    echo "validate: $(RUNS) absent, skipped"; exit 0; fi; \
	./$(PROG) validate $(RUNS) --format json -o build/validate.json --baseline $(BASELINE) && \
	./$(PROG) validate $(RUNS) | sed -n '/^iteration time/,$$p' && \
	./$(PROG) validate $(RUNS) --cv source && \
	./$(PROG) validate $(RUNS) -o /dev/null --write-baseline build/validate-figures.json && \
	sh bench/targets.sh build/validate-figures.json build/validate.json

# ---- mutation benchmark: how many deliberate slips the unit tests catch ----
mutate: deps
	@$(MAKE) --no-print-directory deps DEB_PKGS=python3
	sh bench/mutate.sh

# the README's fidelity table, from validate's JSON (bench/fidelity-table.sh)
readme-fidelity: all
	@$(MAKE) --no-print-directory deps DEB_PKGS=jq
	./$(PROG) validate $(RUNS) --format json -o build/validate-readme.json
	./$(PROG) validate $(RUNS) --cv source --format json -o build/validate-cv.json
	sh bench/fidelity-table.sh build/validate-readme.json build/validate-cv.json $(RUNS) README.md

# The baseline holds the command below, so this target is what reruns it;
# the runs file is named relative to here, so that command is the same in
# every checkout.
RUNS_REL = $(patsubst $(CURDIR)/%,%,$(RUNS))
validate-baseline: deps all
	@if [ ! -f "$(RUNS)" ]; then echo "validate-baseline: $(RUNS) absent"; exit 4; fi; \
	./$(PROG) validate $(RUNS_REL) --write-baseline $(BASELINE) >build/validate.txt && \
	sed -n '/^iteration time/,$$p' build/validate.txt && \
	echo "validate-baseline: $(BASELINE) written; commit it with the modelling change that moved it"

# ---- fuzzing: clang's libFuzzer on the parsers (tests/fuzz/fuzz_*.c) ----
FUZZ_NAMES   = model system scenario stack gpus set runs samples sweep hf
FUZZ_SECONDS ?= 60
FUZZ_DIR     = build/fuzz
CORE_OBJ     = $(filter-out $(BUILD)/search/% $(BUILD)/results/% $(BUILD)/sweep/% \
                 $(BUILD)/calibrate/% $(BUILD)/fidelity/%,$(LIB_OBJ)) \
               $(BUILD)/fidelity/runs.o $(BUILD)/calibrate/samples.o \
               $(BUILD)/sweep/grid.o $(BUILD)/sweep/load.o
FUZZ_BINS    = $(FUZZ_NAMES:%=$(BUILD)/fuzz-%)

$(BUILD)/fuzz-%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(CORE_OBJ)
	$(QUIET_LD)$(CC) $(ALL_CFLAGS) -fsanitize=fuzzer -o $@ $< $(CORE_OBJ) -lconfig -lcsv -ljansson -lm

fuzz-bins: $(FUZZ_BINS)

fuzz-deps:
	@$(MAKE) --no-print-directory deps DEB_PKGS="clang libclang-rt-14-dev libconfig-dev libjansson-dev libcsv-dev"

# seed corpora from the presets and the bad inputs, then fuzz each parser
fuzz: fuzz-deps
	@$(MAKE) --no-print-directory BUILD=$(FUZZ_DIR) CC=clang OPENMP= \
	    CFLAGS="-g -O1" SANITIZE=fuzzer-no-link,address,undefined fuzz-bins
	@for n in $(FUZZ_NAMES); do mkdir -p $(FUZZ_DIR)/corpus/$$n; done
	@cp spaces/models/*.cfg tests/data/bad/model-*.cfg $(FUZZ_DIR)/corpus/model/
	@cp hardware/systems/*.cfg tests/data/bad/system-*.cfg $(FUZZ_DIR)/corpus/system/
	@cp spaces/scenarios/*.cfg tests/data/bad/scenario-*.cfg $(FUZZ_DIR)/corpus/scenario/
	@cp spaces/stacks/*.cfg tests/data/bad/stack-*.cfg $(FUZZ_DIR)/corpus/stack/
	@cp tests/data/bad/sweep-*.cfg $(FUZZ_DIR)/corpus/sweep/
	@i=0; for g in 64 64..1024 8..16384:8 1,2,3 1..2:1 1048576; do i=$$((i+1)); \
	    printf '%s' "$$g" > $(FUZZ_DIR)/corpus/gpus/seed$$i; done
	@printf 'model.layers=40\ngpu.hbm_gib=96\n' > $(FUZZ_DIR)/corpus/set/seed1
	@printf 'job.seq=4096\nspace.tp=2\nnetwork.nic_gbps=800\n' > $(FUZZ_DIR)/corpus/set/seed2
	@printf 'model.glu=false\nefficiency.gemm=0.5\nspace.gpus=8..64\n' > $(FUZZ_DIR)/corpus/set/seed3
	@printf 'stack.host_us=60\nstack.schedules=1f1b\nstack.zero=0,1\n' > $(FUZZ_DIR)/corpus/set/seed4
	@cp tests/data/runs/*.csv $(FUZZ_DIR)/corpus/runs/
	@cp tests/data/samples/*.csv $(FUZZ_DIR)/corpus/samples/
	@for f in tests/data/hf/*.json tests/data/hf/*/config.json; do \
	    cp "$$f" $(FUZZ_DIR)/corpus/hf/$$(echo "$$f" | tr / _); done
	@for n in $(FUZZ_NAMES); do \
	    echo "== fuzz $$n for $(FUZZ_SECONDS) s"; \
	    LSAN_OPTIONS=suppressions=tests/fuzz/lsan.supp \
	    ./$(FUZZ_DIR)/fuzz-$$n -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
	        -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1 \
	        -artifact_prefix=$(FUZZ_DIR)/crash-$$n- $(FUZZ_DIR)/corpus/$$n \
	        2>&1 | grep -E '^(stat::number_of_executed_units|==|SUMMARY|.*ERROR)' ; \
	    ls $(FUZZ_DIR)/crash-$$n-* >/dev/null 2>&1 && \
	        { echo "fuzz $$n: crash saved in $(FUZZ_DIR)"; exit 1; }; \
	done; echo "fuzz: no crash"

fuzz-smoke:
	@$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=4

# ---- valgrind: no leak, no invalid access, on the main paths ----
memcheck: deps all
	@command -v valgrind >/dev/null || $(MAKE) --no-print-directory deps DEB_PKGS=valgrind
	TRAINPLAN=./$(PROG) sh tests/memcheck.sh

# bash (and zsh via bashcompinit) completion, generated from the program's
# own help and lists by doc/completion.sh
completion: $(BUILD)/completion/trainplan.bash
$(BUILD)/completion/trainplan.bash: $(PROG) doc/completion.sh
	@mkdir -p $(@D)
	$(QUIET_GEN)sh doc/completion.sh ./$(PROG) > $@.tmp && mv $@.tmp $@

install: all completion
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	    $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 755 $(PROG) $(DESTDIR)$(PREFIX)/bin/trainplan
	install -m 644 doc/trainplan.1 $(DESTDIR)$(PREFIX)/share/man/man1/trainplan.1
	install -m 644 $(BUILD)/completion/trainplan.bash \
	    $(DESTDIR)$(PREFIX)/share/bash-completion/completions/trainplan

clean:
	rm -rf build trainplan
