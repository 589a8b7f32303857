import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * Prints one line per Maven module with the tests Surefire ran, failed and skipped, each group of skips with
 * its reason, then a closing "total: N passed, N failed, N skipped" line. Run from the repository root:
 * {@code java scripts/TestSummary.java}. A module without reports says so (the build stopped before it, or
 * it has no tests), so a reader sees at a glance what really ran on this machine.
 */
final class TestSummary {
    private static final int REASON_CHARS = 150;
    private static final Pattern MODULE = Pattern.compile("<module>([^<]+)</module>");
    private static final Pattern PREFIX = Pattern.compile(
            "^(org\\.opentest4j\\.TestAbortedException: |Assumption failed: |assumption is not true: )+");

    private record Counts(int run, int failed, int skipped, Map<String, Integer> reasons) {
    }

    public static void main(String[] args) throws Exception {
        Path root = Path.of(args.length > 0 ? args[0] : ".");
        Matcher m = MODULE.matcher(Files.readString(root.resolve("pom.xml")));
        List<String> modules = new ArrayList<>();
        while (m.find()) {
            modules.add(m.group(1).trim());
        }
        int passed = 0;
        int failed = 0;
        int skipped = 0;
        System.out.println("---- tests per module (from the Surefire reports) ----");
        for (String module : modules) {
            Path reports = root.resolve(module).resolve("target/surefire-reports");
            if (!Files.isDirectory(reports)) {
                boolean hasTests = Files.isDirectory(root.resolve(module).resolve("src/test/java"));
                System.out.println(module + ": " + (hasTests
                        ? "no test reports (the build stopped before this module)"
                        : "no tests in this module"));
                continue;
            }
            Counts counts = read(reports);
            passed += counts.run() - counts.failed() - counts.skipped();
            failed += counts.failed();
            skipped += counts.skipped();
            StringBuilder line = new StringBuilder(module).append(": ").append(counts.run()).append(" run, ")
                    .append(counts.failed()).append(" failed, ").append(counts.skipped()).append(" skipped");
            if (!counts.reasons().isEmpty()) {
                List<String> groups = new ArrayList<>();
                counts.reasons().forEach((reason, n) -> groups.add(n + ": " + reason));
                line.append(" (").append(String.join("; ", groups)).append(')');
            }
            System.out.println(line);
        }
        System.out.println("total: " + passed + " passed, " + failed + " failed, " + skipped + " skipped");
    }

    private static Counts read(Path reports) throws Exception {
        int run = 0;
        int failed = 0;
        int skipped = 0;
        Map<String, Integer> reasons = new LinkedHashMap<>();
        List<Path> files;
        try (Stream<Path> listing = Files.list(reports)) {
            files = listing.filter(p -> p.getFileName().toString().matches("TEST-.*\\.xml")).sorted().toList();
        }
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        for (Path file : files) {
            Element suite = factory.newDocumentBuilder().parse(file.toFile()).getDocumentElement();
            NodeList cases = suite.getElementsByTagName("testcase");
            for (int i = 0; i < cases.getLength(); i++) {
                Element test = (Element) cases.item(i);
                run++;
                if (test.getElementsByTagName("failure").getLength() > 0
                        || test.getElementsByTagName("error").getLength() > 0) {
                    failed++;
                }
                NodeList skips = test.getElementsByTagName("skipped");
                if (skips.getLength() > 0) {
                    skipped++;
                    reasons.merge(reason((Element) skips.item(0)), 1, Integer::sum);
                }
            }
        }
        return new Counts(run, failed, skipped, reasons);
    }

    private static String reason(Element skip) {
        String text = skip.getAttribute("message");
        if (text.isBlank()) {
            text = skip.getTextContent();
        }
        String first = text == null ? "" : text.strip().lines().findFirst().orElse("");
        first = PREFIX.matcher(first).replaceFirst("").strip();
        if (first.isEmpty()) {
            return "no reason given";
        }
        return first.length() <= REASON_CHARS ? first : first.substring(0, REASON_CHARS - 3) + "...";
    }

    private TestSummary() {
    }
}
