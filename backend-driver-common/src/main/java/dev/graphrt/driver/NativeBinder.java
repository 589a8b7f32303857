package dev.graphrt.driver;

import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Turns a backend's {@link NativeSymbol}s into downcall handles: the raw layer of the bindings, which a backend
 * keeps in {@code static final} fields of a holder class so the JIT treats each handle as a constant and inlines
 * the downcall (jextract's shape; the typed, checked layer is {@link DriverCalls}).
 *
 * <p>Why a class of its own: finding a symbol, refusing a missing required one and leaving an absent optional
 * one null are the same for every library, and so is the question the probe asks first: which required symbols
 * are missing.
 */
@SuppressWarnings("restricted") // binding native code through FFM is this class's job
public final class NativeBinder {
    private static final Linker LINKER = Linker.nativeLinker();

    private final SymbolLookup lookup;
    private final String library;

    /** Binds symbols of {@code lookup}; {@code library} names it in messages. */
    public NativeBinder(SymbolLookup lookup, String library) {
        this.lookup = Objects.requireNonNull(lookup, "lookup");
        this.library = Objects.requireNonNull(library, "library");
    }

    /** The handle of {@code symbol}, or null when it is optional and the library does not export it. */
    public MethodHandle bind(NativeSymbol symbol) {
        Optional<MemorySegment> address = lookup.find(symbol.name());
        if (address.isEmpty()) {
            if (symbol.required()) {
                throw new IllegalStateException(library + " lacks " + symbol.name());
            }
            return null;
        }
        return symbol.signature().leaf()
                ? LINKER.downcallHandle(address.get(), symbol.descriptor(), Linker.Option.critical(false))
                : LINKER.downcallHandle(address.get(), symbol.descriptor());
    }

    /** Whether the library exports {@code symbol} (an optional one may be absent). */
    public boolean exports(NativeSymbol symbol) {
        return lookup.find(symbol.name()).isPresent();
    }

    /** The names of the required {@code symbols} that {@code lookup} does not export, in order. */
    public static List<String> missing(SymbolLookup lookup, NativeSymbol... symbols) {
        List<String> missing = new ArrayList<>();
        for (NativeSymbol symbol : symbols) {
            if (symbol.required() && lookup.find(symbol.name()).isEmpty()) {
                missing.add(symbol.name());
            }
        }
        return missing;
    }
}
