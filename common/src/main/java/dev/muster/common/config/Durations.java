package dev.muster.common.config;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Go-style durations as Kubernetes users write them: {@code 500ms}, {@code 60s}, {@code 1m30s}, {@code 2h}. */
public final class Durations {
    private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h)");

    private Durations() {}

    /** Parses {@code text}; {@code what} names the setting in the error message. */
    public static Duration parse(String what, String text) {
        String s = text == null ? "" : text.trim();
        if (s.isEmpty()) {
            throw new IllegalArgumentException(what + ": empty duration (write e.g. 60s, 1m30s, 500ms)");
        }
        Matcher m = PART.matcher(s);
        long nanos = 0;
        int at = 0;
        while (at < s.length()) {
            if (!m.find(at) || m.start() != at) {
                throw new IllegalArgumentException(what + ": \"" + text + "\" is not a duration (write e.g. 60s, 1m30s, 500ms)");
            }
            double n = Double.parseDouble(m.group(1));
            long unit = switch (m.group(2)) {
                case "ms" -> 1_000_000L;
                case "s" -> 1_000_000_000L;
                case "m" -> 60_000_000_000L;
                default -> 3_600_000_000_000L;
            };
            nanos += (long) (n * unit);
            at = m.end();
        }
        return Duration.ofNanos(nanos);
    }

    /** Formats like Go does for whole units: 60s → "1m0s" is avoided; we print seconds, e.g. "60s". */
    public static String format(Duration d) {
        if (d.toMillis() % 1000 != 0) {
            return d.toMillis() + "ms";
        }
        return d.toSeconds() + "s";
    }
}
