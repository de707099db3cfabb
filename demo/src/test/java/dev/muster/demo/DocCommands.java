package dev.muster.demo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The shell commands a Markdown document shows: every line of its {@code sh} / {@code bash} fenced blocks and of its
 * indented code blocks, with {@code \} continuations joined, comments dropped, split into words as a shell would
 * (quotes kept together; {@code &&}, {@code |} and a trailing {@code &} separate commands). Other fenced blocks (YAML, output)
 * are not commands. Stateless.
 */
final class DocCommands {
    /** One command: where it is shown, and its words. */
    record Command(Path doc, int line, List<String> words) {
        String first() {
            return words.getFirst();
        }

        @Override
        public String toString() {
            return doc.getFileName() + ":" + line + ": " + String.join(" ", words);
        }
    }

    /** The repository's root (tests run in {@code demo/}). */
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    /** The documents a user reads, relative to {@link #ROOT}. */
    static final List<String> DOCS = List.of("README.md", "docs/demo.md", "docs/benchmarks.md", "docs/gangs.md",
            "docs/architecture.md", "docs/operations.md", "docs/jobs.md", "charts/muster/README.md", "extender-config/README.md");

    private DocCommands() {}

    static List<Command> of(Path doc) throws IOException {
        List<String> lines = Files.readAllLines(doc);
        List<Command> out = new ArrayList<>();
        String fence = null; // the open fence's language, "" for an untagged one, null outside fences
        boolean indentedBlock = false;
        StringBuilder pending = new StringBuilder();
        int pendingLine = 0;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.startsWith("```")) {
                fence = fence == null ? line.substring(3).strip() : null;
                continue;
            }
            boolean command;
            String text;
            if (fence != null) {
                command = fence.equals("sh") || fence.equals("bash");
                text = line;
            } else {
                indentedBlock = line.startsWith("    ") && (indentedBlock || i == 0 || lines.get(i - 1).isBlank());
                command = indentedBlock;
                text = line.strip();
            }
            if (!command) {
                continue;
            }
            String code = withoutComment(text).strip();
            if (code.isEmpty()) {
                continue;
            }
            if (pending.isEmpty()) {
                pendingLine = i + 1;
            }
            if (code.endsWith("\\")) {
                pending.append(code, 0, code.length() - 1).append(' ');
                continue;
            }
            pending.append(code);
            for (List<String> words : split(pending.toString())) {
                out.add(new Command(doc, pendingLine, words));
            }
            pending.setLength(0);
        }
        return out;
    }

    /** The line up to a {@code #} that starts a word outside quotes. */
    static String withoutComment(String line) {
        char quote = 0;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quote != 0) {
                quote = c == quote ? 0 : quote;
            } else if (c == '"' || c == '\'') {
                quote = c;
            } else if (c == '#' && (i == 0 || Character.isWhitespace(line.charAt(i - 1)))) {
                return line.substring(0, i);
            }
        }
        return line;
    }

    /** Shell words, quotes removed but what they hold kept as one word; {@code &&}, {@code &} and {@code |} end a command. */
    static List<List<String>> split(String commandLine) {
        List<List<String>> commands = new ArrayList<>();
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean inWord = false;
        char quote = 0;
        for (int i = 0; i < commandLine.length(); i++) {
            char c = commandLine.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                } else {
                    word.append(c);
                }
            } else if (c == '"' || c == '\'') {
                quote = c;
                inWord = true;
            } else if (Character.isWhitespace(c) || c == '&' || c == '|') {
                if (inWord) {
                    words.add(word.toString());
                    word.setLength(0);
                    inWord = false;
                }
                if (c == '&' || c == '|') {
                    if (i + 1 < commandLine.length() && commandLine.charAt(i + 1) == c) {
                        i++;
                    }
                    if (!words.isEmpty()) {
                        commands.add(List.copyOf(words));
                        words.clear();
                    }
                }
            } else {
                word.append(c);
                inWord = true;
            }
        }
        if (inWord) {
            words.add(word.toString());
        }
        if (!words.isEmpty()) {
            commands.add(List.copyOf(words));
        }
        return commands;
    }
}
