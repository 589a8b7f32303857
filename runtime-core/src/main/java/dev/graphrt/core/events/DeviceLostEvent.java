package dev.graphrt.core.events;

import jdk.jfr.Category;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import org.jspecify.annotations.Nullable;

/** JFR: a runtime's device was lost (a sticky device error): which operation found it, and the error. */
@Name("dev.graphrt.DeviceLost")
@Label("GraphRT device lost")
@Category("GraphRT")
public final class DeviceLostEvent extends Event {
    @Label("Backend")
    public @Nullable String backend;

    @Label("Operation")
    public @Nullable String operation;

    @Label("Error")
    public @Nullable String error;
}
