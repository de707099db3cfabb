package dev.muster.demo.driver;

import java.io.PrintStream;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * The live progress line. On a terminal one line is rewritten in place ({@code \r}) a few times a second;
 * otherwise (a pipe, a CI log) a plain line is printed every {@code plainEvery}. Confined to the thread that
 * calls it.
 */
public final class ProgressLine {
    /** Prints nothing (tests). */
    public static final ProgressLine NONE = new ProgressLine(null, false, Duration.ofDays(1));

    private static final long TTY_EVERY_NANOS = 250_000_000L;

    private final PrintStream out;
    private final boolean tty;
    private final long everyNanos;
    private long lastPrint = Long.MIN_VALUE;
    private int lastLength;

    public ProgressLine(PrintStream out, boolean tty, Duration plainEvery) {
        this.out = out;
        this.tty = tty;
        this.everyNanos = tty ? TTY_EVERY_NANOS : plainEvery.toNanos();
    }

    /** Prints {@code line} if it is time to; the supplier is only called then. */
    public void update(Supplier<String> line) {
        if (out == null) {
            return;
        }
        long now = System.nanoTime();
        if (lastPrint != Long.MIN_VALUE && now - lastPrint < everyNanos) {
            return;
        }
        lastPrint = now;
        String text = line.get();
        if (tty) {
            int pad = Math.max(0, lastLength - text.length());
            out.print("\r" + text + " ".repeat(pad));
            lastLength = text.length();
        } else {
            out.println(text);
        }
        out.flush();
    }

    /** Ends the rewritten line so that what follows starts on a fresh one. */
    public void finish() {
        if (out != null && tty && lastLength > 0) {
            out.println();
            out.flush();
            lastLength = 0;
        }
    }

    /**
     * Whether stdout is a terminal. On JDK 22+ {@code System.console()} exists even when output is redirected, so
     * {@code Console.isTerminal()} (looked up reflectively: this code targets Java 21) decides there.
     */
    public static boolean stdoutIsTerminal() {
        java.io.Console console = System.console();
        if (console == null) {
            return false;
        }
        try {
            Method isTerminal = console.getClass().getMethod("isTerminal");
            return (Boolean) isTerminal.invoke(console);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return true; // Java 21: a console exists only when attached to a terminal
        }
    }
}
