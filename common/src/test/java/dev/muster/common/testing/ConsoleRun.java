package dev.muster.common.testing;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** What a command-line entry point returned and printed: for tests of the processes' and the CLI's mains. */
public record ConsoleRun(int exit, String out, String err) {
    /** An entry point that prints to the streams it is given and returns its exit code. */
    @FunctionalInterface
    public interface Command {
        int run(PrintStream out, PrintStream err) throws Exception;
    }

    /** Runs {@code command} with captured output. */
    public static ConsoleRun of(Command command) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = command.run(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new ConsoleRun(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    public List<String> errLines() {
        return err.lines().toList();
    }
}
