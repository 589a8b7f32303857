// The README's example must have compiled and run: a build that ran no test passes Maven but fails here.
def reports = new File(basedir, 'target/surefire-reports').listFiles()?.findAll { it.name ==~ /TEST-.*\.xml/ } ?: []
assert !reports.isEmpty() : "no Surefire report: the README example did not run"
def text = reports.collect { it.text }.join('\n')
int tests = (text =~ /<testcase /).size()
int failures = (text =~ /<failure/).size() + (text =~ /<error/).size() + (text =~ /<skipped/).size()
println "README build: ${tests} run, ${failures} failed or skipped (the Twenty lines example, compiled from README.md)"
assert tests == 1
assert failures == 0
