package dev.muster.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * One child process with its output in a log file. {@link #close()} (and a JVM shutdown hook) destroy it and its
 * descendants, so a failed test run leaves nothing behind on the machine.
 */
public final class Proc implements AutoCloseable {
    private final String name;
    private final List<String> command;
    private final Map<String, String> env;
    private final Path log;
    private Process process;
    private final Thread hook;

    private Proc(String name, List<String> command, Map<String, String> env, Path log) {
        this.name = name;
        this.command = List.copyOf(command);
        this.env = Map.copyOf(env);
        this.log = log;
        this.hook = new Thread(this::destroy, "stop-" + name);
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** Starts {@code command}; stdout and stderr are appended to {@code log}. */
    public static Proc start(String name, List<String> command, Map<String, String> env, Path log) throws IOException {
        Proc p = new Proc(name, command, env, log);
        p.launch();
        return p;
    }

    private void launch() throws IOException {
        ProcessBuilder b = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        b.environment().putAll(env);
        process = b.start();
    }

    /** Starts the same command again (after {@link #kill9()} or an exit). */
    public void restart() throws IOException {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException(name + " is still running");
        }
        launch();
    }

    public boolean alive() {
        return process != null && process.isAlive();
    }

    public long pid() {
        return process.pid();
    }

    /** SIGKILL, as {@code kill -9}: no shutdown hooks, no goodbye; waits until the process is gone. */
    public void kill9() throws InterruptedException {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    public Path log() {
        return log;
    }

    /** The last {@code lines} lines of the log, for error messages. */
    public String tail(int lines) {
        try {
            List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    /** Waits until {@code ready} holds; fails with the log's tail if the process dies or time runs out. */
    public void awaitReady(String what, Duration timeout, BooleanSupplier ready) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (ready.getAsBoolean()) {
                return;
            }
            if (!alive()) {
                throw new IllegalStateException(name + " exited (" + process.exitValue() + ") before " + what + "; log "
                        + log + ":\n" + tail(30));
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(name + " not " + what + " within " + timeout.toSeconds() + "s; log " + log
                        + ":\n" + tail(30));
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted waiting for " + name, e);
            }
        }
    }

    private void destroy() {
        if (process != null && process.isAlive()) {
            List<ProcessHandle> children = new ArrayList<>(process.descendants().toList());
            process.destroy();
            try {
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
            children.forEach(ProcessHandle::destroyForcibly);
        }
    }

    @Override
    public void close() {
        destroy();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs anyway
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
