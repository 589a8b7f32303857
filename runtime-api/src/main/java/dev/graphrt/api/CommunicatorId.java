package dev.graphrt.api;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * The bytes that let ranks in several processes find each other ({@link Collectives#join}): made once by one
 * process ({@link Collectives#newId()}, NCCL's unique id) and passed to every other through whatever launcher the
 * application already uses (MPI, Kubernetes, Spark), as {@link #bytes()} or {@link #toString()}'s hex. Immutable:
 * it copies what it is given and what it gives out.
 */
public final class CommunicatorId {
    private final byte[] bytes;

    private CommunicatorId(byte[] bytes) {
        this.bytes = bytes;
    }

    /** An id from bytes another process got from {@link #bytes()}; refused when empty. */
    public static CommunicatorId of(byte[] bytes) {
        Objects.requireNonNull(bytes, "bytes");
        if (bytes.length == 0) {
            throw new IllegalArgumentException("bytes: a communicator id is never empty");
        }
        return new CommunicatorId(bytes.clone());
    }

    /** An id from the hex another process got from {@link #toString()}. */
    public static CommunicatorId fromHex(String hex) {
        Objects.requireNonNull(hex, "hex");
        try {
            return of(HexFormat.of().parseHex(hex));
        } catch (IllegalArgumentException bad) {
            throw new IllegalArgumentException(
                    "hex: not a communicator id's hex digits (" + bad.getMessage() + ")", bad);
        }
    }

    /** A copy of the id's bytes. */
    public byte[] bytes() {
        return bytes.clone();
    }

    /** The bytes as lower-case hex, for a launcher that passes text. */
    @Override
    public String toString() {
        return HexFormat.of().formatHex(bytes);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof CommunicatorId id && Arrays.equals(bytes, id.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }
}
