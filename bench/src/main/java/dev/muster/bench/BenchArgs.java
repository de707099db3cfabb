package dev.muster.bench;

import java.util.LinkedHashMap;
import java.util.Map;

/** A load driver's {@code --name value} arguments over its defaults. */
final class BenchArgs {
    private BenchArgs() {}

    /** {@code defaults} overridden by {@code args} given as {@code --name value} pairs; an unknown name is refused. */
    static Map<String, String> parse(Map<String, String> defaults, String[] args) {
        Map<String, String> a = new LinkedHashMap<>(defaults);
        for (int i = 0; i < args.length; i += 2) {
            String name = args[i].replaceFirst("^--", "");
            if (!a.containsKey(name) || i + 1 >= args.length) {
                throw new IllegalArgumentException("unknown argument or missing value: " + args[i] + "; known: --" + String.join(", --", a.keySet()));
            }
            a.put(name, args[i + 1]);
        }
        return a;
    }
}
