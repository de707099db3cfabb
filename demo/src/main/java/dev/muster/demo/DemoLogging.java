package dev.muster.demo;

import dev.muster.common.ops.ProcessLogging;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where the processes' logs go. Everything logs through SLF4J's simple backend, which writes to {@code System.err}
 * ({@code java.util.logging}, which the extender's {@code System.Logger} uses, is routed there by
 * {@link ProcessLogging}). The demo sends it to a file so the progress line and the report stay readable; the CLI
 * keeps only warnings. Call before anything logs.
 */
final class DemoLogging {
    private DemoLogging() {}

    /** Everything at INFO and above into {@code file}; returns the original stderr for the user's messages. */
    static PrintStream toFile(Path file) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        if (dir != null) {
            Files.createDirectories(dir);
        }
        PrintStream userErr = System.err;
        PrintStream log = new PrintStream(new FileOutputStream(file.toFile(), false), true, StandardCharsets.UTF_8);
        System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
        System.setProperty("org.slf4j.simpleLogger.dateTimeFormat", "HH:mm:ss.SSS");
        System.setErr(log);
        ProcessLogging.install();
        return userErr;
    }

    /** Warnings and errors only, to stderr (the CLI). */
    static void warningsOnly() {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        ProcessLogging.install();
    }
}
