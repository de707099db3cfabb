package dev.muster.common.config;

import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Command-line flags ({@code --name value} or {@code --name=value}) with environment fallback
 * ({@code MUSTER_NAME_IN_UPPER_SNAKE}). A flag given on the command line wins over the environment,
 * which wins over the default. Unknown flags and malformed values are errors that name the flag.
 *
 * <p>Immutable once parsed; thread-safe.
 */
public final class Flags {
    private final Map<String, String> values;

    private Flags(Map<String, String> values) {
        this.values = Map.copyOf(values);
    }

    /**
     * Parses {@code args} against the {@code known} flag names (without "--").
     *
     * @throws IllegalArgumentException naming the offending argument
     */
    public static Flags parse(List<String> args, Set<String> known, Map<String, String> env) {
        Map<String, String> values = new LinkedHashMap<>();
        for (String name : known) {
            String fromEnv = env.get(envName(name));
            if (fromEnv != null) {
                values.put(name, fromEnv);
            }
        }
        Map<String, String> fromArgs = new HashMap<>();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (!arg.startsWith("--")) {
                throw new IllegalArgumentException("unexpected argument \"" + arg + "\" (flags look like --name value)");
            }
            String name = arg.substring(2);
            String value;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            } else if (i + 1 < args.size() && !args.get(i + 1).startsWith("--")) {
                value = args.get(++i);
            } else {
                value = "true"; // a bare boolean flag
            }
            if (!known.contains(name)) {
                throw new IllegalArgumentException("unknown flag --" + name + " (known: --" + String.join(", --", known.stream().sorted().toList()) + ")");
            }
            fromArgs.put(name, value);
        }
        values.putAll(fromArgs);
        return new Flags(values);
    }

    /** {@code gang-deadline} → {@code MUSTER_GANG_DEADLINE}. */
    public static String envName(String flag) {
        return "MUSTER_" + flag.toUpperCase().replace('-', '_');
    }

    public String string(String name, String defaultValue) {
        return values.getOrDefault(name, defaultValue);
    }

    public int integer(String name, int defaultValue) {
        String v = values.get(name);
        if (v == null) {
            return defaultValue;
        }
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + ": \"" + v + "\" is not a whole number");
        }
    }

    public long longValue(String name, long defaultValue) {
        String v = values.get(name);
        if (v == null) {
            return defaultValue;
        }
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + ": \"" + v + "\" is not a whole number");
        }
    }

    public double decimal(String name, double defaultValue) {
        String v = values.get(name);
        if (v == null) {
            return defaultValue;
        }
        try {
            return Double.parseDouble(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + ": \"" + v + "\" is not a number");
        }
    }

    public boolean bool(String name, boolean defaultValue) {
        String v = values.get(name);
        if (v == null) {
            return defaultValue;
        }
        return switch (v.trim().toLowerCase()) {
            case "true", "yes", "1" -> true;
            case "false", "no", "0" -> false;
            default -> throw new IllegalArgumentException("--" + name + ": \"" + v + "\" is not true or false");
        };
    }

    public Duration duration(String name, Duration defaultValue) {
        String v = values.get(name);
        return v == null ? defaultValue : Durations.parse("--" + name, v);
    }

    /** A port number (0-65535; 0 picks a free port). */
    public int port(String name, int defaultValue) {
        int port = integer(name, defaultValue);
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("--" + name + ": " + port + " is not a port (0-65535; 0 picks a free port)");
        }
        return port;
    }

    /** Optional value: null when neither given nor in the environment. */
    public String optional(String name) {
        String v = values.get(name);
        return v == null || v.isBlank() ? null : v;
    }

    /**
     * {@code file} as a path, or an error naming {@code flag} (with its leading dashes) and saying whether the
     * file is missing or unreadable. The one check for every file-valued flag (kubeconfig, TLS files).
     */
    public static java.nio.file.Path readableFile(String flag, String file) {
        java.nio.file.Path p = java.nio.file.Path.of(file);
        String name = flag.startsWith("--") ? flag : "--" + flag;
        if (!java.nio.file.Files.isRegularFile(p)) {
            throw new IllegalArgumentException(name + ": " + file + " does not exist or is not a file");
        }
        if (!java.nio.file.Files.isReadable(p)) {
            throw new IllegalArgumentException(name + ": " + file + " is not readable");
        }
        return p;
    }
}
