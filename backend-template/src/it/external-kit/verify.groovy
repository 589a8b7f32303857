// The kit must have run in full: a build that ran no test, or skipped more than the undeclared capability's
// group, fails here even when Maven itself succeeded. The kit's groups are nested classes, whose cases Surefire
// writes into the one report with the suite's own counts at 0, so the cases themselves are counted.
def reports = new File(basedir, 'target/surefire-reports').listFiles()?.findAll { it.name ==~ /TEST-.*\.xml/ } ?: []
assert !reports.isEmpty() : "no Surefire report: no test ran"
def text = reports.collect { it.text }.join('\n')
int tests = (text =~ /<testcase /).size()
int skipped = (text =~ /<skipped/).size()
int failures = (text =~ /<failure/).size() + (text =~ /<error/).size()
println "external kit: ${tests} run, ${failures} failed, ${skipped} skipped"
assert tests >= 60 : "the whole kit has at least 60 tests, ran ${tests}"
assert failures == 0
assert skipped <= 18 : "only the fork/join tests (groups 25, 28 and 31; MULTI_STREAM_CAPTURE undeclared), group 30's " +
        "fixed-block test (the template's kernels let the launch choose its block), group 31's tests of update, " +
        "rebind and nesting (GRAPH_UPDATE and NESTED_GRAPHS undeclared) and group 32's nine tests of a declared " +
        "COLLECTIVES may skip, skipped ${skipped}"
