package dev.muster.demo.scenario;

/**
 * A scenario that cannot be used, with where the problem is: {@code source:line: field: problem}, e.g.
 * {@code my.yaml:14: gangs[1].size: "8-x" is not a whole number or a range like 8-64}.
 */
public final class ScenarioException extends RuntimeException {
    private final String source;
    private final int line;
    private final String field;
    private final String problem;

    public ScenarioException(String source, int line, String field, String problem) {
        super(source + (line > 0 ? ":" + line : "") + ": " + (field == null || field.isEmpty() ? "" : field + ": ") + problem, null, false, false);
        this.source = source;
        this.line = line;
        this.field = field == null ? "" : field;
        this.problem = problem;
    }

    public String source() {
        return source;
    }

    /** 1-based line, or 0 when not known. */
    public int line() {
        return line;
    }

    /** The field's path, e.g. {@code gangs[1].size} ("" for the document as a whole). */
    public String field() {
        return field;
    }

    public String problem() {
        return problem;
    }
}
