package dev.muster.controller.writer;

/** A monotonic nanosecond source; tests and the load driver inject a simulated one. */
@FunctionalInterface
public interface Ticker {
    Ticker SYSTEM = System::nanoTime;

    long nanos();
}
