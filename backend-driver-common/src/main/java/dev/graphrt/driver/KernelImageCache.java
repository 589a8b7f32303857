package dev.graphrt.driver;

import dev.graphrt.spi.BackendConfig;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compiled kernel images (PTX, code objects) kept on disk between processes, so a warm start loads what NVRTC or
 * hiprtc made last time instead of compiling again. An entry is keyed by a SHA-256 of the kernel's text, its entry
 * point, and what else decides the image ({@link KernelToolchain#imageKey()}: the compiler and its version, the
 * device architecture, the options); a change of any of them is a different entry.
 *
 * <p>Nothing read back is trusted: an entry holds its full key and a SHA-256 of the image, and an entry that is
 * short, of another format, of another key or whose image does not match its digest is deleted and the kernel
 * compiled again. Entries are written to a temporary file and moved into place, so a reader never sees half of
 * one, and only after the image loaded ({@link DriverKernelCompiler}). A cache that cannot be read or written
 * never fails a compilation: the compiler runs, and the first failure is logged once.
 *
 * <p>Where: the backend option {@value #OPTION} (a directory, or {@code off}), else
 * {@code $XDG_CACHE_HOME/graphrt}, else {@code ~/.cache/graphrt}; each backend has a folder of its own there.
 * Thread-safe: entries are separate files, each written atomically.
 */
public final class KernelImageCache {
    /** Backend option: the cache's directory, or {@code off}. */
    public static final String OPTION = "kernelCache";

    private static final Logger LOG = LoggerFactory.getLogger(KernelImageCache.class);
    private static final byte[] MAGIC = "GRTKIMG1".getBytes(StandardCharsets.US_ASCII);
    private static final int DIGEST_BYTES = 32;
    /** Larger than any kernel image; a length beyond it is a corrupt entry, not an allocation to try. */
    private static final int MAX_IMAGE_BYTES = 256 << 20;

    private final Optional<Path> directory;
    private final AtomicBoolean warned = new AtomicBoolean();

    private KernelImageCache(Optional<Path> directory) {
        this.directory = directory;
    }

    /** A cache in {@code directory} (its backend's folder). */
    public static KernelImageCache in(Path directory) {
        return new KernelImageCache(Optional.of(Objects.requireNonNull(directory, "directory")));
    }

    /** No cache: every kernel is compiled. */
    public static KernelImageCache off() {
        return new KernelImageCache(Optional.empty());
    }

    /** The cache {@code config} names for {@code backend} (see the class comment for where). */
    public static KernelImageCache configured(BackendConfig config, String backend) {
        String option = config.option(OPTION, "").strip();
        if (option.equalsIgnoreCase("off")) {
            return off();
        }
        Path root;
        if (!option.isEmpty()) {
            root = Path.of(option);
        } else {
            String xdg = System.getenv("XDG_CACHE_HOME");
            root = xdg != null && !xdg.isBlank()
                    ? Path.of(xdg, "graphrt")
                    : Path.of(System.getProperty("user.home"), ".cache", "graphrt");
        }
        return in(root.resolve(backend));
    }

    /** The folder entries go into, or empty when off. */
    public Optional<Path> directory() {
        return directory;
    }

    /** The entry of kernel {@code entryPoint} with {@code text}, compiled as {@code imageKey} says. */
    public Entry entry(String imageKey, String entryPoint, String text) {
        String key = "graphrt kernel image 1\n" + imageKey + "\n" + entryPoint + "\n" + text;
        return new Entry(
                key,
                directory.map(d ->
                        d.resolve(HexFormat.of().formatHex(sha256(key.getBytes(StandardCharsets.UTF_8))) + ".kimg")));
    }

    /** One kernel's place in the cache. */
    public final class Entry {
        private final String key;
        private final Optional<Path> file;

        private Entry(String key, Optional<Path> file) {
            this.key = key;
            this.file = file;
        }

        /** The file, or empty when the cache is off. */
        public Optional<Path> file() {
            return file;
        }

        /** The image stored for this key; empty when absent, unreadable or corrupt (a corrupt one is deleted). */
        public Optional<byte[]> read() {
            if (file.isEmpty()) {
                return Optional.empty();
            }
            byte[] bytes;
            try {
                bytes = Files.readAllBytes(file.get());
            } catch (NoSuchFileException absent) {
                return Optional.empty();
            } catch (IOException | RuntimeException unreadable) {
                warnOnce("cannot read " + file.get() + ": " + unreadable);
                return Optional.empty();
            }
            Optional<byte[]> image = decode(bytes);
            if (image.isEmpty()) {
                LOG.warn("kernel cache entry {} is corrupt; it is deleted and the kernel compiled again", file.get());
                delete();
            }
            return image;
        }

        /** Stores {@code image} for this key (atomically; a failure is logged once and otherwise ignored). */
        public void write(byte[] image) {
            if (file.isEmpty()) {
                return;
            }
            Path target = file.get();
            Path temporary = target.resolveSibling(target.getFileName() + ".tmp"
                    + Long.toHexString(ThreadLocalRandom.current().nextLong()));
            try {
                Files.createDirectories(target.getParent());
                Files.write(temporary, encode(image));
                try {
                    Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException notAtomic) {
                    Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING);
                }
            } catch (IOException | RuntimeException failure) {
                warnOnce("cannot write " + target + ": " + failure);
                try {
                    Files.deleteIfExists(temporary);
                } catch (IOException ignored) {
                    // the temporary name is unique; a leftover is never read as an entry
                }
            }
        }

        /** Removes this key's entry (an image the driver refused, a corrupt file). */
        public void delete() {
            if (file.isPresent()) {
                try {
                    Files.deleteIfExists(file.get());
                } catch (IOException failure) {
                    warnOnce("cannot delete " + file.get() + ": " + failure);
                }
            }
        }

        private byte[] encode(byte[] image) throws IOException {
            byte[] keyBytes = key.getBytes(StandardCharsets.UTF_8);
            ByteArrayOutputStream out = new ByteArrayOutputStream(image.length + keyBytes.length + 64);
            try (DataOutputStream data = new DataOutputStream(out)) {
                data.write(MAGIC);
                data.writeInt(keyBytes.length);
                data.write(keyBytes);
                data.writeInt(image.length);
                data.write(image);
                data.write(sha256(image));
            }
            return out.toByteArray();
        }

        private Optional<byte[]> decode(byte[] bytes) {
            ByteBuffer in = ByteBuffer.wrap(bytes);
            byte[] expectedKey = key.getBytes(StandardCharsets.UTF_8);
            if (in.remaining() < MAGIC.length + 4 || !Arrays.equals(take(in, MAGIC.length), MAGIC)) {
                return Optional.empty();
            }
            int keyLength = in.getInt();
            if (keyLength != expectedKey.length
                    || in.remaining() < keyLength + 4
                    || !Arrays.equals(take(in, keyLength), expectedKey)) {
                return Optional.empty();
            }
            int imageLength = in.getInt();
            if (imageLength <= 0 || imageLength > MAX_IMAGE_BYTES || in.remaining() != imageLength + DIGEST_BYTES) {
                return Optional.empty();
            }
            byte[] image = take(in, imageLength);
            return Arrays.equals(take(in, DIGEST_BYTES), sha256(image)) ? Optional.of(image) : Optional.empty();
        }
    }

    private static byte[] take(ByteBuffer in, int length) {
        byte[] out = new byte[length];
        in.get(out);
        return out;
    }

    private void warnOnce(String what) {
        if (warned.compareAndSet(false, true)) {
            LOG.warn("kernel cache: {}; kernels are compiled without it (further failures are logged at debug)", what);
        } else {
            LOG.debug("kernel cache: {}", what);
        }
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException impossible) {
            throw new IllegalStateException("every Java platform has SHA-256", impossible);
        }
    }
}
