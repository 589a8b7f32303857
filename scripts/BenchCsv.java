import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Extracts one markdown table of a benchmark doc into CSV, so the plots are made from the doc's own figures and
 * nothing is typed twice. Run by {@code scripts/plots.sh}:
 *
 * <pre>java scripts/BenchCsv.java DOC ANCHOR OUT.csv TITLE UNIT COLUMN...</pre>
 *
 * <p>ANCHOR is the start of the one line of DOC (a heading, usually "## Run G") after which the first table is taken;
 * the commit ("commit abc1234" or "commits abc1234") and the date (YYYY-MM-DD) are the first ones written between
 * that line and the table. Each COLUMN is {@code csv_name=doc header=legend label}: the doc header is matched
 * exactly against the table's header cells with their parenthesised parts removed ("replay (host)" is "replay"),
 * and must match one cell. The first COLUMN is the row label (its cells lose their parenthesised parts too: "16M x
 * 100 (GPU-bound control)" is "16M x 100"); every other cell must start with a number, of which the first is taken
 * ("3.59 (3.43)" is 3.59), or be "-" or empty (an empty CSV field). Anything else stops the extraction with an error
 * rather than guessing. The CSV starts with "# key: value" comment lines: source, section, table line, commit,
 * date, title, unit, and one label per column.
 */
final class BenchCsv {
    private static final Pattern COMMIT = Pattern.compile("\\bcommits? ([0-9a-f]{7,40})\\b");
    private static final Pattern DATE = Pattern.compile("\\b(20\\d\\d-\\d\\d-\\d\\d)\\b");
    private static final Pattern NUMBER = Pattern.compile("^(\\d+(?:,\\d{3})*(?:\\.\\d+)?)(?![\\d.])");
    private static final Pattern PARENTHESISED = Pattern.compile("\\s*\\([^()]*\\)");

    /** One requested column: its CSV name, the doc header it comes from and its legend label. */
    record Column(String csvName, String docHeader, String label) {
        static Column parse(String spec) {
            String[] parts = spec.split("=", 3);
            if (parts.length != 3 || parts[0].isBlank() || parts[1].isBlank() || parts[2].isBlank()) {
                throw new IllegalArgumentException("a column is csv_name=doc header=legend label, not: " + spec);
            }
            if (!parts[0].matches("[a-z][a-z0-9_]*")) {
                throw new IllegalArgumentException("a CSV column name is lower case, digits and _: " + parts[0]);
            }
            return new Column(parts[0], normalize(parts[1]), parts[2].strip());
        }
    }

    /** The table found: its first line (1-based), header cells and data rows. */
    record Table(int line, List<String> header, List<List<String>> rows) {
    }

    private BenchCsv() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 7) {
            System.err.println("usage: java scripts/BenchCsv.java DOC ANCHOR OUT.csv TITLE UNIT ROW_COLUMN VALUE_COLUMN...");
            System.exit(2);
        }
        Path doc = Path.of(args[0]);
        String anchor = args[1];
        Path out = Path.of(args[2]);
        String title = args[3];
        String unit = args[4];
        List<Column> columns = Arrays.stream(args, 5, args.length).map(Column::parse).toList();

        List<String> lines = Files.readAllLines(doc, StandardCharsets.UTF_8);
        int anchorIndex = anchorLine(lines, anchor, doc);
        Table table = tableAfter(lines, anchorIndex, doc);
        String between = String.join("\n", lines.subList(anchorIndex, table.line() - 1));
        String commit = first(COMMIT, between).orElseThrow(() -> new IllegalStateException(
                doc + ": no commit named between \"" + anchor + "\" and its table (line " + table.line() + ")"));
        Optional<String> date = first(DATE, between);

        int[] indices = columns.stream().mapToInt(c -> headerIndex(table, c, doc)).toArray();
        StringBuilder csv = new StringBuilder();
        comment(csv, "source", doc.toString().replace('\\', '/'));
        comment(csv, "section", lines.get(anchorIndex).strip());
        comment(csv, "table line", String.valueOf(table.line()));
        comment(csv, "commit", commit);
        date.ifPresent(d -> comment(csv, "date", d));
        comment(csv, "title", title);
        comment(csv, "unit", unit);
        for (int c = 0; c < columns.size(); c++) {
            comment(csv, "label." + columns.get(c).csvName(), columns.get(c).label());
            comment(csv, "header." + columns.get(c).csvName(), table.header().get(indices[c]));
        }
        comment(csv, "made by", "scripts/plots.sh (scripts/BenchCsv.java); regenerate, do not edit");
        csv.append(String.join(",", columns.stream().map(Column::csvName).toList())).append('\n');
        for (List<String> row : table.rows()) {
            List<String> fields = new ArrayList<>();
            for (int c = 0; c < columns.size(); c++) {
                String cell = row.get(indices[c]);
                fields.add(c == 0 ? quote(normalize(cell)) : number(cell, doc, table, columns.get(c)));
            }
            csv.append(String.join(",", fields)).append('\n');
        }
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, csv, StandardCharsets.UTF_8);
        System.err.println("BenchCsv: " + out + " <- " + doc + " line " + table.line() + " (" + table.rows().size()
                + " rows, commit " + commit + ")");
    }

    private static int anchorLine(List<String> lines, String anchor, Path doc) {
        List<Integer> hits = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).strip().startsWith(anchor)) {
                hits.add(i);
            }
        }
        if (hits.size() != 1) {
            throw new IllegalStateException(doc + ": " + hits.size() + " lines start with \"" + anchor + "\", need one");
        }
        return hits.getFirst();
    }

    private static Table tableAfter(List<String> lines, int from, Path doc) {
        int i = from + 1;
        while (i < lines.size() && !lines.get(i).strip().startsWith("|")) {
            i++;
        }
        if (i + 1 >= lines.size() || !lines.get(i + 1).strip().matches("\\|(\\s*:?-+:?\\s*\\|)+")) {
            throw new IllegalStateException(doc + ": no markdown table after line " + (from + 1));
        }
        List<String> header = cells(lines.get(i));
        List<List<String>> rows = new ArrayList<>();
        for (int r = i + 2; r < lines.size() && lines.get(r).strip().startsWith("|"); r++) {
            List<String> row = cells(lines.get(r));
            if (row.size() != header.size()) {
                throw new IllegalStateException(doc + " line " + (r + 1) + ": " + row.size() + " cells, header has "
                        + header.size());
            }
            rows.add(row);
        }
        return new Table(i + 1, header, rows);
    }

    private static List<String> cells(String line) {
        String s = line.strip();
        s = s.substring(1, s.endsWith("|") ? s.length() - 1 : s.length());
        return Arrays.stream(s.split("\\|", -1)).map(String::strip).toList();
    }

    private static int headerIndex(Table table, Column column, Path doc) {
        List<Integer> hits = new ArrayList<>();
        for (int i = 0; i < table.header().size(); i++) {
            if (normalize(table.header().get(i)).equals(column.docHeader())) {
                hits.add(i);
            }
        }
        if (hits.size() != 1) {
            throw new IllegalStateException(doc + " line " + table.line() + ": " + hits.size() + " header cells are \""
                    + column.docHeader() + "\" (parenthesised parts removed), need one; the headers: "
                    + table.header());
        }
        return hits.getFirst();
    }

    /** Drops emphasis and every parenthesised part: "**1.28x** met" stays, "replay (host)" becomes "replay". */
    private static String normalize(String cell) {
        String s = cell.replace("**", "").strip();
        String before;
        do {
            before = s;
            s = PARENTHESISED.matcher(s).replaceAll("");
        } while (!s.equals(before));
        return s.strip();
    }

    private static String number(String cell, Path doc, Table table, Column column) {
        String s = cell.replace("**", "").strip();
        if (s.isEmpty() || s.equals("-")) {
            return "";
        }
        Matcher m = NUMBER.matcher(s);
        if (!m.find()) {
            throw new IllegalStateException(doc + " (table at line " + table.line() + "), column \""
                    + column.docHeader() + "\": the cell \"" + cell + "\" does not start with a number");
        }
        return m.group(1).replace(",", "");
    }

    private static Optional<String> first(Pattern pattern, String text) {
        Matcher m = pattern.matcher(text);
        return m.find() ? Optional.of(m.group(1)) : Optional.empty();
    }

    private static void comment(StringBuilder csv, String key, String value) {
        csv.append("# ").append(key).append(": ").append(value.replace('\n', ' ')).append('\n');
    }

    private static String quote(String field) {
        return field.contains(",") || field.contains("\"") ? '"' + field.replace("\"", "\"\"") + '"' : field;
    }
}
