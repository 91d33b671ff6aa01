CLI_TEST_DIRS += tests/tr-export/cases

# speedscope's web app, which the browser cases open the exports in: its npm package,
# fetched once from registry.npmjs.org into build/npm (shared by build/release and
# build/san) before those cases run; without it `make test` stops here, saying why.
SPEEDSCOPE_VERSION := 1.25.0
SPEEDSCOPE_APP := build/npm/node_modules/speedscope/dist/release/index.html
$(SPEEDSCOPE_APP): | test-deps
	@echo "  NPM     speedscope@$(SPEEDSCOPE_VERSION) into build/npm"
	$(Q)mkdir -p build/npm && cd build/npm && \
	  { npm install --no-audit --no-fund --fetch-retries=1 --prefix "$$PWD" speedscope@$(SPEEDSCOPE_VERSION) > npm.log 2>&1 && \
	    [ -f $(CURDIR)/$@ ]; } || \
	  { tail -5 npm.log; echo "make test: could not fetch speedscope@$(SPEEDSCOPE_VERSION) from registry.npmjs.org into build/npm (npm install failed, build/npm/npm.log): tr-export's browser cases need it"; exit 1; }
test: $(if $(filter tests/tr-export%,$(CLI_TEST_DIRS)),$(SPEEDSCOPE_APP))
