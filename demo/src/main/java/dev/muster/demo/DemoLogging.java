package dev.muster.demo;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/**
 * Where the processes' logs go. The extender logs through {@code System.Logger} (java.util.logging), the
 * controller through SLF4J (slf4j-simple, which writes to {@code System.err}). The demo sends both to a file so
 * the progress line and the report stay readable; the CLI keeps only warnings. Call before anything logs.
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
        System.setProperty("org.slf4j.simpleLogger.showDateTime", "true");
        System.setProperty("org.slf4j.simpleLogger.dateTimeFormat", "HH:mm:ss.SSS");
        System.setErr(log);
        julTo(log, Level.INFO);
        return userErr;
    }

    /** Warnings and errors only, to stderr (the CLI). */
    static void warningsOnly() {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        julTo(System.err, Level.WARNING);
    }

    private static void julTo(PrintStream out, Level level) {
        LogManager.getLogManager().reset();
        Logger root = Logger.getLogger("");
        root.setLevel(level);
        SimpleFormatter format = new SimpleFormatter();
        root.addHandler(new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (isLoggable(record)) {
                    out.print(format.format(record));
                }
            }

            @Override
            public void flush() {
                out.flush();
            }

            @Override
            public void close() {
                out.flush();
            }
        });
    }
}
