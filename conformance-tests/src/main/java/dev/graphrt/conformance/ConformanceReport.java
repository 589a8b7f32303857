package dev.graphrt.conformance;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * Writes one Markdown table per backend kit class: every test, its outcome and the reason for a skip or
 * failure, into {@code target/conformance/<backend>.md} (or {@code -Dgraphrt.conformance.dir}). Committed
 * device runs copy that file to {@code docs/conformance/}.
 */
public final class ConformanceReport implements BeforeAllCallback, TestWatcher {
    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(ConformanceReport.class);

    record Row(String group, String test, String outcome, String reason) {}

    /** Collects the rows of one kit class and writes them when the run ends (the root store closes). */
    static final class Collector implements AutoCloseable {
        private final String backend;
        private final List<Row> rows = new ArrayList<>();
        private String device = "";

        Collector(String backend) {
            this.backend = backend;
        }

        synchronized void add(Row row) {
            rows.add(row);
        }

        synchronized void device(String description) {
            if (device.isEmpty() && description != null) {
                device = description;
            }
        }

        @Override
        public synchronized void close() {
            if (rows.isEmpty()) {
                return;
            }
            Path dir = Path.of(System.getProperty("graphrt.conformance.dir", "target/conformance"));
            long passed =
                    rows.stream().filter(r -> r.outcome().equals("passed")).count();
            long skipped =
                    rows.stream().filter(r -> r.outcome().equals("skipped")).count();
            long failed = rows.size() - passed - skipped;
            StringBuilder md = new StringBuilder();
            md.append("# Conformance: ").append(backend).append("\n\n");
            md.append("- date: ")
                    .append(OffsetDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ISO_LOCAL_DATE))
                    .append('\n');
            md.append("- device: ")
                    .append(device.isEmpty() ? "(no runtime opened)" : device)
                    .append('\n');
            md.append("- commit: ")
                    .append(System.getProperty("graphrt.commit", "(not given)"))
                    .append('\n');
            md.append("- result: ")
                    .append(passed)
                    .append(" passed, ")
                    .append(failed)
                    .append(" failed, ")
                    .append(skipped)
                    .append(" skipped\n\n");
            md.append("| group | test | outcome | reason |\n|---|---|---|---|\n");
            for (Row row : rows) {
                md.append("| ")
                        .append(row.group())
                        .append(" | ")
                        .append(row.test())
                        .append(" | ")
                        .append(row.outcome())
                        .append(" | ")
                        .append(row.reason().replace("|", "\\|").replace("\n", " "))
                        .append(" |\n");
            }
            try {
                Files.createDirectories(dir);
                Files.writeString(dir.resolve(backend + ".md"), md);
            } catch (IOException failure) {
                throw new UncheckedIOException(failure);
            }
        }
    }

    /** The backend's kit class: the class context right under the engine (nested groups belong to the kit). */
    private static Class<?> kitClass(ExtensionContext context) {
        ExtensionContext top = context;
        while (top.getParent().flatMap(ExtensionContext::getParent).isPresent()) {
            top = top.getParent().get();
        }
        return top.getRequiredTestClass();
    }

    private static String backendLabel(Class<?> kitClass) {
        String name = kitClass.getSimpleName().replace("ConformanceTest", "").replace("Test", "");
        return name.isEmpty() ? kitClass.getSimpleName() : name.toLowerCase(java.util.Locale.ROOT);
    }

    private static Collector collector(ExtensionContext context) {
        Class<?> kitClass = kitClass(context);
        return context.getRoot()
                .getStore(NAMESPACE)
                .getOrComputeIfAbsent(
                        kitClass.getName(), key -> new Collector(backendLabel(kitClass)), Collector.class);
    }

    private static boolean enabled(ExtensionContext context) {
        return context.getConfigurationParameter("graphrt.conformance.report")
                .map(Boolean::parseBoolean)
                .orElse(true);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        if (enabled(context)) {
            collector(context);
        }
    }

    private static void record(ExtensionContext context, String outcome, String reason) {
        if (!enabled(context)) {
            return;
        }
        Collector collector = collector(context);
        context.getTestInstances()
                .ifPresent(instances -> instances.getAllInstances().stream()
                        .filter(KitFixture.class::isInstance)
                        .map(KitFixture.class::cast)
                        .filter(fixture -> fixture.runtime != null)
                        .findFirst()
                        .ifPresent(fixture -> collector.device(fixture.runtime.device()
                                + (System.getProperty(KitSupport.DEVICE_PROPERTY) != null
                                        ? " (device ordinal " + KitSupport.deviceIndex() + ")"
                                        : "")
                                + "; declares "
                                + new TreeSet<>(fixture.runtime.capabilities()))));
        String group = context.getParent().map(ExtensionContext::getDisplayName).orElse("");
        collector.add(new Row(group, context.getDisplayName(), outcome, reason));
    }

    @Override
    public void testSuccessful(ExtensionContext context) {
        record(context, "passed", "");
    }

    @Override
    public void testAborted(ExtensionContext context, Throwable cause) {
        record(context, "skipped", cause == null ? "" : String.valueOf(cause.getMessage()));
    }

    @Override
    public void testFailed(ExtensionContext context, Throwable cause) {
        record(context, "FAILED", cause == null ? "" : cause.toString());
    }

    @Override
    public void testDisabled(ExtensionContext context, Optional<String> reason) {
        record(context, "skipped", reason.orElse("disabled"));
    }
}
