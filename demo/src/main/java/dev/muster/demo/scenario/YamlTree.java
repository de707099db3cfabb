package dev.muster.demo.scenario;

import java.io.StringReader;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * A YAML document as a tree of fields that know their path and line, so every error can say where it is.
 * snakeyaml composes the node tree (no object construction: nothing in the file can instantiate classes);
 * {@link Obj} reads a mapping field by field and, when {@link Obj#done()} is called, rejects fields it did not
 * expect. Not thread-safe; used by one reader at a time.
 */
final class YamlTree {
    private static final int MAX_BYTES = 1 << 20;

    private YamlTree() {}

    /** The document's top-level mapping. */
    static Obj parse(String text, String source) {
        if (text.length() > MAX_BYTES) {
            throw new ScenarioException(source, 0, "", "the file is larger than " + (MAX_BYTES >> 10) + " KiB");
        }
        LoaderOptions options = new LoaderOptions();
        options.setAllowDuplicateKeys(false);
        options.setMaxAliasesForCollections(50);
        Node root;
        try {
            root = new Yaml(options).compose(new StringReader(text));
        } catch (MarkedYAMLException e) {
            Mark m = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
            String problem = (e.getContext() == null ? "" : e.getContext() + ", ") + e.getProblem();
            throw new ScenarioException(source, m == null ? 0 : m.getLine() + 1, "", "not valid YAML: " + problem);
        } catch (YAMLException e) {
            throw new ScenarioException(source, 0, "", "not valid YAML: " + e.getMessage());
        }
        if (root == null) {
            throw new ScenarioException(source, 0, "", "the file is empty");
        }
        return new Val(source, "", root).obj();
    }

    /** One value in the tree. */
    static final class Val {
        final String source;
        final String path;
        final Node node;

        Val(String source, String path, Node node) {
            this.source = source;
            this.path = path;
            this.node = node;
        }

        int line() {
            return node.getStartMark() == null ? 0 : node.getStartMark().getLine() + 1;
        }

        ScenarioException error(String problem) {
            return new ScenarioException(source, line(), path, problem);
        }

        boolean isScalar() {
            return node instanceof ScalarNode;
        }

        boolean isList() {
            return node instanceof SequenceNode;
        }

        String text() {
            if (!(node instanceof ScalarNode s)) {
                throw error("expected a single value, found " + kind());
            }
            return s.getValue().trim();
        }

        String nonEmptyText() {
            String t = text();
            if (t.isEmpty()) {
                throw error("must not be empty");
            }
            return t;
        }

        long whole(long min, long max) {
            String t = text();
            long v;
            try {
                v = Long.parseLong(t);
            } catch (NumberFormatException e) {
                throw error("\"" + t + "\" is not a whole number");
            }
            if (v < min || v > max) {
                throw error(v + " is out of range (" + min + " to " + max + ")");
            }
            return v;
        }

        double number() {
            String t = text();
            try {
                double d = Double.parseDouble(t);
                if (Double.isNaN(d) || Double.isInfinite(d)) {
                    throw new NumberFormatException();
                }
                return d;
            } catch (NumberFormatException e) {
                throw error("\"" + t + "\" is not a number");
            }
        }

        List<Val> list() {
            if (!(node instanceof SequenceNode s)) {
                throw error("expected a list (lines starting with \"- \"), found " + kind());
            }
            List<Val> out = new ArrayList<>();
            for (int i = 0; i < s.getValue().size(); i++) {
                out.add(new Val(source, path + "[" + i + "]", s.getValue().get(i)));
            }
            return out;
        }

        Obj obj() {
            if (!(node instanceof MappingNode m)) {
                throw error("expected a mapping (key: value lines), found " + kind());
            }
            return new Obj(this, m);
        }

        private String kind() {
            return switch (node) {
                case ScalarNode s -> "\"" + s.getValue() + "\"";
                case SequenceNode s -> "a list";
                case MappingNode m -> "a mapping";
                default -> "something else";
            };
        }
    }

    /** A mapping read field by field. */
    static final class Obj {
        final Val self;
        private final Map<String, Val> fields = new LinkedHashMap<>();
        private final Set<String> expected = new LinkedHashSet<>();

        Obj(Val self, MappingNode node) {
            this.self = self;
            for (NodeTuple t : node.getValue()) {
                if (!(t.getKeyNode() instanceof ScalarNode k)) {
                    throw new Val(self.source, self.path, t.getKeyNode()).error("keys must be plain names");
                }
                String key = k.getValue();
                fields.put(key, new Val(self.source, self.path.isEmpty() ? key : self.path + "." + key, t.getValueNode()));
            }
        }

        /** The field, or null when absent (or written as {@code ~}/{@code null}). */
        Val optional(String key) {
            expected.add(key);
            Val v = fields.get(key);
            if (v != null && v.node instanceof ScalarNode s && v.node.getTag().getValue().endsWith(":null")) {
                return null;
            }
            return v;
        }

        Val required(String key) {
            Val v = optional(key);
            if (v == null) {
                for (Map.Entry<String, Val> f : fields.entrySet()) {
                    if (!expected.contains(f.getKey()) && closeTo(f.getKey(), key)) {
                        throw f.getValue().error("unknown field (missing field \"" + key + "\": is \"" + f.getKey() + "\" misspelt?)");
                    }
                }
                throw self.error("missing field \"" + key + "\"");
            }
            return v;
        }

        /** At most two single-character edits apart (Levenshtein), case-insensitively. */
        static boolean closeTo(String a, String b) {
            String x = a.toLowerCase();
            String y = b.toLowerCase();
            if (Math.abs(x.length() - y.length()) > 2) {
                return false;
            }
            int[] prev = new int[y.length() + 1];
            int[] cur = new int[y.length() + 1];
            for (int j = 0; j <= y.length(); j++) {
                prev[j] = j;
            }
            for (int i = 1; i <= x.length(); i++) {
                cur[0] = i;
                for (int j = 1; j <= y.length(); j++) {
                    int cost = x.charAt(i - 1) == y.charAt(j - 1) ? 0 : 1;
                    cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
                }
                int[] t = prev;
                prev = cur;
                cur = t;
            }
            return prev[y.length()] <= 2;
        }

        /** Every key present, in file order (for free-form maps such as a capability). */
        Map<String, Val> all() {
            expected.addAll(fields.keySet());
            return fields;
        }

        ScenarioException error(String problem) {
            return self.error(problem);
        }

        /** Rejects fields nobody asked for (a typo must not be silently ignored). */
        void done() {
            for (Map.Entry<String, Val> f : fields.entrySet()) {
                if (!expected.contains(f.getKey())) {
                    throw f.getValue().error("unknown field (expected one of: " + String.join(", ", expected) + ")");
                }
            }
        }
    }
}
