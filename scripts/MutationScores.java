import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads PIT's mutations.xml and prints, per package, the mutants killed of those generated and the score; a
 * mutant with no test covering it counts as survived, as in PIT's own score. Usage: java MutationScores.java FILE
 */
public final class MutationScores {
    private static final Pattern MUTATION = Pattern.compile(
            "<mutation [^>]*status='(\\w+)'[^>]*>.*?<mutatedClass>([\\w.$]+)</mutatedClass>", Pattern.DOTALL);

    public static void main(String[] args) throws Exception {
        String xml = Files.readString(Path.of(args[0]));
        Map<String, int[]> byPackage = new TreeMap<>();
        Matcher m = MUTATION.matcher(xml);
        while (m.find()) {
            String cls = m.group(2);
            String pkg = cls.substring(0, cls.lastIndexOf('.'));
            int[] counts = byPackage.computeIfAbsent(pkg, k -> new int[3]);
            counts[0]++;
            switch (m.group(1)) {
                case "KILLED", "TIMED_OUT", "MEMORY_ERROR" -> counts[1]++;
                case "NO_COVERAGE" -> counts[2]++;
                default -> { }
            }
        }
        for (Map.Entry<String, int[]> e : byPackage.entrySet()) {
            int[] c = e.getValue();
            System.out.printf("mutation: %s: %d of %d mutants killed (%.1f%%), %d with no covering test%n",
                    e.getKey(), c[1], c[0], 100.0 * c[1] / c[0], c[2]);
        }
    }
}
