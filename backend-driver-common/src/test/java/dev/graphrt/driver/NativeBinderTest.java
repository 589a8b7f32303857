package dev.graphrt.driver;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Linker;
import java.lang.invoke.MethodHandle;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

/** Binding symbols: leaves as critical downcalls that still call the function, absent ones as the symbol says. */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class NativeBinderTest {
    private enum Libc implements NativeSymbol {
        abs(NativeSymbol.Signature.leaf(true, JAVA_INT)),
        labs_is_not_this(NativeSymbol.Signature.of(false, JAVA_INT)),
        graphrt_missing_required(NativeSymbol.Signature.of(true, JAVA_INT));

        private final NativeSymbol.Signature signature;

        Libc(NativeSymbol.Signature signature) {
            this.signature = signature;
        }

        @Override
        public NativeSymbol.Signature signature() {
            return signature;
        }
    }

    private final NativeBinder binder = new NativeBinder(Linker.nativeLinker().defaultLookup(), "libc");

    @Test
    void a_leaf_is_marked_as_one_and_an_ordinary_symbol_is_not() {
        assertThat(Libc.abs.signature().leaf()).isTrue();
        assertThat(Libc.labs_is_not_this.signature().leaf()).isFalse();
        assertThat(new NativeSymbol.Signature(true, Libc.abs.descriptor()).leaf())
                .isFalse();
    }

    @Test
    void a_leaf_bound_as_a_critical_downcall_calls_the_function() throws Throwable {
        MethodHandle abs = binder.bind(Libc.abs);

        assertThat((int) abs.invokeExact(-7)).isEqualTo(7);
        assertThat((int) abs.invokeExact(12_345)).isEqualTo(12_345);
    }

    @Test
    void an_absent_optional_symbol_binds_to_null_and_an_absent_required_one_is_refused_by_name() {
        assertThat(binder.bind(Libc.labs_is_not_this)).isNull();
        assertThatThrownBy(() -> binder.bind(Libc.graphrt_missing_required))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("libc lacks graphrt_missing_required");
    }
}
