import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.AffineTransform;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;

/**
 * Draws a CSV made by {@code scripts/BenchCsv.java} as grouped bars, one group per row (N x K), one bar per value
 * column, each bar labelled with its figure; a log scale when the largest figure is over 20 times the smallest. The
 * title, the unit, the legend labels and the source (doc, section, commit, date) come from the CSV's comment lines.
 * Needs only the JDK (java.awt in headless mode, javax.imageio). Run by {@code scripts/plots.sh}:
 *
 * <pre>java -Djava.awt.headless=true scripts/PlotBenchmarks.java IN.csv OUT.png</pre>
 */
final class PlotBenchmarks {
    private static final int WIDTH = 1400;
    private static final int HEIGHT = 820;
    private static final int LEFT = 110;
    private static final int RIGHT = 40;
    private static final int TOP = 175;
    private static final int BOTTOM = 100;
    private static final double LOG_SPREAD = 20;
    private static final Color INK = new Color(0x22, 0x22, 0x22);
    private static final Color GRID = new Color(0xdd, 0xdd, 0xdd);

    /** The CSV: comment keys in order, the value columns' names, and the rows. */
    record Data(Map<String, String> meta, List<String> series, List<Row> rows) {
        String meta(String key, String otherwise) {
            return meta.getOrDefault(key, otherwise);
        }
    }

    /** One row: its label and one figure per series as written in the CSV (blank when absent). */
    record Row(String label, List<String> figures) {
    }

    /** The value axis: linear from 0, or logarithmic between two powers of ten or 1-2-5 steps. */
    record Axis(boolean log, double min, double max, List<Double> ticks) {
        static Axis fit(double lo, double hi) {
            if (hi / lo > LOG_SPREAD) {
                double min = step125AtMost(lo / 1.6);
                double max = step125AtLeast(hi * 1.6);
                boolean decadesOnly = Math.log10(max / min) > 4;
                List<Double> ticks = new ArrayList<>();
                for (double decade = Math.pow(10, Math.floor(Math.log10(min))); decade <= max * 1.0001; decade *= 10) {
                    for (double m : decadesOnly ? new double[] {1} : new double[] {1, 2, 5}) {
                        double t = decade * m;
                        if (t >= min * 0.9999 && t <= max * 1.0001) {
                            ticks.add(t);
                        }
                    }
                }
                return new Axis(true, min, max, ticks);
            }
            double step = step125AtLeast(hi * 1.15 / 8);
            double max = Math.ceil(hi * 1.15 / step) * step;
            List<Double> ticks = new ArrayList<>();
            for (double t = 0; t <= max * 1.0001; t += step) {
                ticks.add(t);
            }
            return new Axis(false, 0, max, ticks);
        }

        /** Where {@code v} sits from 0 (bottom) to 1 (top). */
        double position(double v) {
            return log ? Math.log(v / min) / Math.log(max / min) : v / max;
        }

        private static double step125AtMost(double v) {
            double decade = Math.pow(10, Math.floor(Math.log10(v)));
            for (double m : new double[] {5, 2, 1}) {
                if (decade * m <= v) {
                    return decade * m;
                }
            }
            return decade;
        }

        private static double step125AtLeast(double v) {
            double decade = Math.pow(10, Math.floor(Math.log10(v)));
            for (double m : new double[] {1, 2, 5, 10}) {
                if (decade * m >= v) {
                    return decade * m;
                }
            }
            return decade * 10;
        }
    }

    private PlotBenchmarks() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: java -Djava.awt.headless=true scripts/PlotBenchmarks.java IN.csv OUT.png");
            System.exit(2);
        }
        System.setProperty("java.awt.headless", "true");
        Data data = read(Path.of(args[0]));
        BufferedImage image = draw(data, args[0]);
        if (!ImageIO.write(image, "png", Path.of(args[1]).toFile())) {
            throw new IOException("no PNG writer");
        }
        System.err.println("PlotBenchmarks: " + args[1] + " <- " + args[0]);
    }

    static Data read(Path csv) throws IOException {
        Map<String, String> meta = new LinkedHashMap<>();
        List<String> header = null;
        List<Row> rows = new ArrayList<>();
        for (String line : Files.readAllLines(csv, StandardCharsets.UTF_8)) {
            if (line.isBlank()) {
                continue;
            }
            if (line.startsWith("#")) {
                int colon = line.indexOf(": ");
                if (colon > 0) {
                    meta.putIfAbsent(line.substring(1, colon).strip(), line.substring(colon + 2).strip());
                }
            } else if (header == null) {
                header = fields(line);
            } else {
                List<String> f = fields(line);
                if (f.size() != header.size()) {
                    throw new IllegalStateException(csv + ": " + f.size() + " fields in \"" + line + "\", header has "
                            + header.size());
                }
                rows.add(new Row(f.getFirst(), f.subList(1, f.size())));
            }
        }
        if (header == null || header.size() < 2 || rows.isEmpty()) {
            throw new IllegalStateException(csv + ": need a header with a row column and a value column, and rows");
        }
        return new Data(meta, header.subList(1, header.size()), rows);
    }

    /** Splits one CSV line; a field in double quotes may hold commas and doubled quotes. */
    static List<String> fields(String line) {
        List<String> out = new ArrayList<>();
        StringBuilder field = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quoted && c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                field.append('"');
                i++;
            } else if (c == '"') {
                quoted = !quoted;
            } else if (c == ',' && !quoted) {
                out.add(field.toString());
                field.setLength(0);
            } else {
                field.append(c);
            }
        }
        out.add(field.toString());
        return out;
    }

    static BufferedImage draw(Data data, String csvName) {
        BufferedImage image = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_FRACTIONALMETRICS, RenderingHints.VALUE_FRACTIONALMETRICS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, WIDTH, HEIGHT);

        double lo = Double.MAX_VALUE;
        double hi = 0;
        for (Row row : data.rows()) {
            for (String f : row.figures()) {
                if (!f.isBlank()) {
                    double v = Double.parseDouble(f);
                    lo = Math.min(lo, v);
                    hi = Math.max(hi, v);
                }
            }
        }
        Axis axis = Axis.fit(lo, hi);
        int plotLeft = LEFT;
        int plotRight = WIDTH - RIGHT;
        int plotTop = TOP;
        int plotBottom = HEIGHT - BOTTOM;
        int plotHeight = plotBottom - plotTop;

        // Title, source and legend.
        int textWidth = WIDTH - LEFT - RIGHT;
        g.setColor(INK);
        fitFont(g, Font.BOLD, 26, data.meta("title", csvName), textWidth);
        g.drawString(data.meta("title", csvName), plotLeft, 44);
        g.setColor(new Color(0x44, 0x44, 0x44));
        String source = "source: " + data.meta("source", "?") + ", the table at line " + data.meta("table line", "?")
                + ", under \"" + section(data.meta("section", "?")) + "\"";
        String drawn = "run at commit " + data.meta("commit", "?") + (data.meta.containsKey("date")
                ? " on " + data.meta("date", "") : "") + "; lower is better; CSV " + csvName
                + ", drawn by scripts/plots.sh";
        fitFont(g, Font.PLAIN, 16, source.length() > drawn.length() ? source : drawn, textWidth);
        g.drawString(source, plotLeft, 72);
        g.drawString(drawn, plotLeft, 94);
        drawLegend(g, data, plotLeft, 128);

        // Grid and ticks.
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 15));
        FontMetrics fm = g.getFontMetrics();
        for (double t : axis.ticks()) {
            int y = plotBottom - (int) Math.round(axis.position(t) * plotHeight);
            g.setColor(GRID);
            g.setStroke(new BasicStroke(1f));
            g.drawLine(plotLeft, y, plotRight, y);
            g.setColor(INK);
            String label = tick(t);
            g.drawString(label, plotLeft - 10 - fm.stringWidth(label), y + fm.getAscent() / 2 - 2);
        }
        g.setColor(INK);
        g.setStroke(new BasicStroke(1.5f));
        g.drawLine(plotLeft, plotTop, plotLeft, plotBottom);
        g.drawLine(plotLeft, plotBottom, plotRight, plotBottom);

        // Axis titles.
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 17));
        String yTitle = data.meta("unit", "value") + (axis.log() ? " (log scale)" : "");
        AffineTransform saved = g.getTransform();
        g.rotate(-Math.PI / 2);
        FontMetrics ym = g.getFontMetrics();
        g.drawString(yTitle, -(plotTop + plotHeight / 2) - ym.stringWidth(yTitle) / 2, 28);
        g.setTransform(saved);
        String rowLabel = data.meta("label.row", "N x K");
        String xTitle = rowLabel.equals("N x K") ? "row: N floats x K dependent launches" : rowLabel;
        g.drawString(xTitle, plotLeft + (plotRight - plotLeft) / 2 - g.getFontMetrics().stringWidth(xTitle) / 2,
                plotBottom + 68);

        // Bars.
        int groups = data.rows().size();
        int series = data.series().size();
        double groupWidth = (plotRight - plotLeft) / (double) groups;
        double barWidth = Math.min(70, groupWidth * 0.8 / series);
        Font valueFont = new Font(Font.SANS_SERIF, Font.PLAIN, barWidth < 44 ? 12 : 14);
        for (int r = 0; r < groups; r++) {
            Row row = data.rows().get(r);
            double groupLeft = plotLeft + r * groupWidth + (groupWidth - barWidth * series) / 2;
            for (int s = 0; s < series; s++) {
                String figure = row.figures().get(s);
                if (figure.isBlank()) {
                    continue;
                }
                double v = Double.parseDouble(figure);
                int x = (int) Math.round(groupLeft + s * barWidth);
                int w = (int) Math.round(barWidth) - 3;
                int top = plotBottom - (int) Math.round(Math.max(0, axis.position(v)) * plotHeight);
                g.setColor(color(data.series().get(s)));
                g.fillRect(x, top, w, plotBottom - top);
                g.setColor(color(data.series().get(s)).darker());
                g.setStroke(new BasicStroke(1f));
                g.drawRect(x, top, w, plotBottom - top);
                g.setColor(INK);
                g.setFont(valueFont);
                FontMetrics vm = g.getFontMetrics();
                g.drawString(figure, x + w / 2f - vm.stringWidth(figure) / 2f, top - 5);
            }
            g.setColor(INK);
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 17));
            FontMetrics lm = g.getFontMetrics();
            String label = row.label();
            g.drawString(label, (float) (plotLeft + r * groupWidth + groupWidth / 2 - lm.stringWidth(label) / 2.0),
                    plotBottom + 30);
        }
        g.dispose();
        return image;
    }

    private static void drawLegend(Graphics2D g, Data data, int left, int baseline) {
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 17));
        FontMetrics fm = g.getFontMetrics();
        int x = left;
        for (String name : data.series()) {
            String label = data.meta("label." + name, name);
            g.setColor(color(name));
            g.fillRect(x, baseline - 15, 26, 18);
            g.setColor(color(name).darker());
            g.drawRect(x, baseline - 15, 26, 18);
            g.setColor(INK);
            g.drawString(label, x + 34, baseline);
            x += 34 + fm.stringWidth(label) + 36;
        }
    }

    /**
     * A series' colour from its name: eager figures orange, replays and graphs blue, GraphRT's own saturated and
     * the others' (the C or webgpu.h floor, another backend) light; a floor with neither word grey.
     */
    static Color color(String name) {
        boolean ours = name.startsWith("graphrt_");
        if (name.contains("eager")) {
            return ours ? new Color(0xd9, 0x6c, 0x00) : new Color(0xf5, 0xb8, 0x6e);
        }
        if (name.contains("replay") || name.contains("graph")) {
            return ours ? new Color(0x1f, 0x5f, 0xa8) : new Color(0x8d, 0xb8, 0xe6);
        }
        if (name.contains("floor")) {
            return new Color(0x9a, 0x9a, 0x9a);
        }
        return new Color(0x5a, 0xa0, 0x5a);
    }

    private static String tick(double t) {
        if (t >= 1000) {
            return String.format("%,d", Math.round(t));
        }
        return t == Math.rint(t) ? String.valueOf((long) t) : String.valueOf(t);
    }

    /** A doc heading without its leading #s and parenthesised parts: "Run G, commit 8ce8272, 2026-11-30". */
    private static String section(String heading) {
        String s = heading.replaceFirst("^#+\\s*", "");
        String before;
        do {
            before = s;
            s = s.replaceAll("\\s*\\([^()]*\\)", "");
        } while (!s.equals(before));
        return s.strip();
    }

    /** Sets a sans-serif font of {@code size} or smaller (down to 11) so that {@code text} fits {@code width}. */
    private static void fitFont(Graphics2D g, int style, int size, String text, int width) {
        for (int s = size; ; s--) {
            g.setFont(new Font(Font.SANS_SERIF, style, s));
            if (s <= 11 || g.getFontMetrics().stringWidth(text) <= width) {
                return;
            }
        }
    }
}
