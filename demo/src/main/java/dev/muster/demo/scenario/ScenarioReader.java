package dev.muster.demo.scenario;

import dev.muster.common.config.Durations;
import dev.muster.core.model.QueueSpec;
import dev.muster.core.model.QueueState;
import dev.muster.core.resources.InvalidQuantityException;
import dev.muster.core.resources.Quantities;
import dev.muster.core.resources.ResourceNames;
import dev.muster.core.resources.Resources;
import dev.muster.demo.scenario.YamlTree.Obj;
import dev.muster.demo.scenario.YamlTree.Val;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads a scenario from YAML (format: {@code docs/demo.md}). Every problem is a {@link ScenarioException} naming
 * the file, the line and the field: unknown fields, missing ones, malformed quantities, durations, ranges and
 * rates, references to queues that are not defined, duplicate names. Stateless; thread-safe.
 */
public final class ScenarioReader {
    /** The built-in scenario, a resource of this module. */
    public static final String DEFAULT_RESOURCE = "/scenarios/default.yaml";

    private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
    private static final Pattern RATE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*/\\s*(s|m|h)");
    private static final long GI = 1L << 30;
    private static final long MI = 1L << 20;

    private ScenarioReader() {}

    public static Scenario builtIn() {
        return builtIn(DEFAULT_RESOURCE);
    }

    /** A scenario shipped in this module's resources, e.g. {@code /scenarios/contended.yaml}. */
    public static Scenario builtIn(String resource) {
        try (InputStream in = ScenarioReader.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("the built-in scenario " + resource + " is missing from the classpath");
            }
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), resource.substring(resource.lastIndexOf('/') + 1) + " (built in)");
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the built-in scenario " + resource, e);
        }
    }

    public static Scenario load(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new ScenarioException(file.toString(), 0, "", "no such file");
        } catch (IOException e) {
            throw new ScenarioException(file.toString(), 0, "", "cannot read: " + e.getMessage());
        }
        return parse(text, file.toString());
    }

    public static Scenario parse(String yaml, String source) {
        Obj root = YamlTree.parse(yaml, source);
        String name = root.optional("name") == null ? "unnamed" : root.optional("name").nonEmptyText();
        long seed = root.optional("seed") == null ? 1 : root.optional("seed").whole(Long.MIN_VALUE, Long.MAX_VALUE);
        Settings settings = settings(root.optional("settings"), root.optional("speed"));
        List<NodeGroup> nodes = nodeGroups(root.required("nodes"));
        List<QueueSpec> queues = root.optional("queues") == null ? List.of() : queues(root.optional("queues"));
        Set<String> queueNames = new HashSet<>();
        queues.forEach(q -> queueNames.add(q.name()));
        Set<String> workloadNames = new HashSet<>();
        List<GangWorkload> gangs = new ArrayList<>();
        if (root.optional("gangs") != null) {
            for (Val v : root.optional("gangs").list()) {
                gangs.add(gang(v.obj(), queueNames, workloadNames));
            }
        }
        List<PodWorkload> pods = new ArrayList<>();
        if (root.optional("pods") != null) {
            for (Val v : root.optional("pods").list()) {
                pods.add(pod(v.obj(), workloadNames));
            }
        }
        root.done();
        return new Scenario(name, seed, settings, nodes, queues, gangs, pods);
    }

    // ------------------------------------------------------------------------------------------------ parts

    private static Settings settings(Val settingsVal, Val speedVal) {
        Settings d = Settings.DEFAULTS;
        double speed = d.speed();
        if (speedVal != null) {
            speed = speedVal.number();
            if (!(speed > 0) || speed > 10_000) {
                throw speedVal.error(speed + " is out of range (more than 0, at most 10000)");
            }
        }
        if (settingsVal == null) {
            return d.withSpeed(speed);
        }
        Obj s = settingsVal.obj();
        Settings out = new Settings(speed,
                positive(s.optional("gangDeadline"), d.gangDeadline()),
                nonNegative(s.optional("podStartup"), d.podStartup()),
                positive(s.optional("sampleEvery"), d.sampleEvery()),
                positive(s.optional("timeLimit"), d.timeLimit()),
                positive(s.optional("podInitialBackoff"), d.podInitialBackoff()),
                positive(s.optional("podMaxBackoff"), d.podMaxBackoff()),
                positive(s.optional("unschedulableFlush"), d.unschedulableFlush()),
                s.optional("nodesToScore") == null ? d.nodesToScore() : (int) s.optional("nodesToScore").whole(1, 100_000),
                positive(s.optional("flushInterval"), d.flushInterval()),
                onOff(s.optional("preemption"), d.preemption()),
                onOff(s.optional("reclaim"), d.reclaim()),
                nonNegative(s.optional("victimMinRuntime"), d.victimMinRuntime()));
        if (out.podMaxBackoff().compareTo(out.podInitialBackoff()) < 0) {
            throw s.optional("podMaxBackoff") != null ? s.optional("podMaxBackoff").error("must not be shorter than podInitialBackoff")
                    : s.error("podInitialBackoff must not be longer than podMaxBackoff");
        }
        s.done();
        return out;
    }

    private static List<NodeGroup> nodeGroups(Val v) {
        List<NodeGroup> out = new ArrayList<>();
        Set<String> groups = new HashSet<>();
        for (Val item : v.list()) {
            Obj o = item.obj();
            String group = label(o.required("group"));
            if (!groups.add(group)) {
                throw o.required("group").error("node group \"" + group + "\" is defined twice");
            }
            int count = (int) o.required("count").whole(1, 100_000);
            Resources.Builder b = Resources.builder()
                    .set(ResourceNames.CPU, quantity(o.required("cpu"), ResourceNames.CPU))
                    .set(ResourceNames.MEMORY, quantity(o.required("memory"), ResourceNames.MEMORY))
                    .set(ResourceNames.PODS, o.optional("pods") == null ? 110 : o.optional("pods").whole(1, 10_000));
            if (o.optional("gpu") != null) {
                b.set(PodShape.GPU, quantity(o.optional("gpu"), PodShape.GPU));
            }
            o.done();
            out.add(new NodeGroup(group, count, b.build()));
        }
        if (out.isEmpty()) {
            throw v.error("at least one node group is needed");
        }
        return out;
    }

    private static List<QueueSpec> queues(Val v) {
        List<QueueSpec> out = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (Val item : v.list()) {
            Obj o = item.obj();
            String name = label(o.required("name"));
            if (!names.add(name)) {
                throw o.required("name").error("queue \"" + name + "\" is defined twice");
            }
            int weight = o.optional("weight") == null ? 1 : (int) o.optional("weight").whole(1, 65_535);
            QueueState state = QueueState.OPEN;
            if (o.optional("state") != null) {
                String s = o.optional("state").nonEmptyText();
                state = QueueState.parse(s);
                if (state == QueueState.UNKNOWN || state == QueueState.CLOSING) {
                    throw o.optional("state").error("\"" + s + "\" is not a queue state (Open or Closed)");
                }
            }
            Resources capability = null;
            if (o.optional("capability") != null) {
                Resources.Builder b = Resources.builder();
                for (Map.Entry<String, Val> r : o.optional("capability").obj().all().entrySet()) {
                    String resource = r.getKey().equals("gpu") ? PodShape.GPU : r.getKey();
                    b.set(resource, quantity(r.getValue(), resource));
                }
                capability = b.build();
            }
            o.done();
            out.add(new QueueSpec(name, state, weight, capability, Resources.ZERO, Resources.ZERO, true));
        }
        return out;
    }

    private static GangWorkload gang(Obj o, Set<String> queues, Set<String> workloadNames) {
        String name = label(o.required("name"));
        String namespace = o.optional("namespace") == null ? "default" : label(o.optional("namespace"));
        if (!workloadNames.add(namespace + "/" + name)) {
            throw o.required("name").error("workload \"" + name + "\" in namespace \"" + namespace + "\" is defined twice");
        }
        Val queueVal = o.required("queue");
        String queue = queueVal.nonEmptyText();
        if (!queues.contains(queue)) {
            throw queueVal.error("queue \"" + queue + "\" is not defined under queues"
                    + (queues.isEmpty() ? " (there are none)" : " (defined: " + String.join(", ", queues.stream().sorted().toList()) + ")"));
        }
        int count = (int) o.required("count").whole(0, 100_000);
        Range size = countRange(o.required("size"), 1, 10_000);
        MinMember minMember = o.optional("minMember") == null ? MinMember.ALL : minMember(o.optional("minMember"));
        PodShape shape = shape(o);
        DurationRange duration = durationRange(o.required("duration"));
        Arrival arrival = arrival(o);
        int priority = o.optional("priority") == null ? 0 : (int) o.optional("priority").whole(-1_000_000_000, 1_000_000_000);
        dev.muster.core.model.GangApi api = o.optional("api") == null ? null : gangApi(o.optional("api"));
        o.done();
        return new GangWorkload(name, namespace, queue, count, size, minMember, shape, duration, arrival, priority, api);
    }

    /** {@code volcano}, {@code kubernetes} or {@code scheduler-plugins}. */
    private static dev.muster.core.model.GangApi gangApi(Val v) {
        String text = v.nonEmptyText();
        for (dev.muster.core.model.GangApi api : dev.muster.core.model.GangApi.values()) {
            if (api.label().equals(text)) {
                return api;
            }
        }
        throw v.error("\"" + text + "\" is not a gang API (write volcano, kubernetes or scheduler-plugins)");
    }

    private static PodWorkload pod(Obj o, Set<String> workloadNames) {
        String name = label(o.required("name"));
        String namespace = o.optional("namespace") == null ? "default" : label(o.optional("namespace"));
        if (!workloadNames.add(namespace + "/" + name)) {
            throw o.required("name").error("workload \"" + name + "\" in namespace \"" + namespace + "\" is defined twice");
        }
        int count = (int) o.required("count").whole(0, 1_000_000);
        PodShape shape = shape(o);
        DurationRange duration = durationRange(o.required("duration"));
        Arrival arrival = arrival(o);
        int priority = o.optional("priority") == null ? 0 : (int) o.optional("priority").whole(-1_000_000_000, 1_000_000_000);
        o.done();
        return new PodWorkload(name, namespace, count, shape, duration, arrival, priority);
    }

    static PodShape shape(Obj o) {
        Range cpu = quantityRange(o.required("cpu"), ResourceNames.CPU);
        Range memory = quantityRange(o.required("memory"), ResourceNames.MEMORY);
        Range gpu = o.optional("gpu") == null ? Range.of(0) : quantityRange(o.optional("gpu"), PodShape.GPU);
        if (cpu.min() <= 0 && memory.min() <= 0) {
            throw o.required("cpu").error("a pod must request some cpu or memory");
        }
        return new PodShape(cpu, memory, gpu);
    }

    static Arrival arrival(Obj o) {
        Duration start = o.optional("start") == null ? Duration.ZERO : nonNegative(o.optional("start"), Duration.ZERO);
        Val rateVal = o.required("rate");
        String text = rateVal.text();
        var m = RATE.matcher(text);
        if (!m.matches()) {
            throw rateVal.error("\"" + text + "\" is not a rate (write arrivals per time unit, e.g. 30/m, 2/s, 100/h)");
        }
        double n = Double.parseDouble(m.group(1));
        if (!(n > 0)) {
            throw rateVal.error("the rate must be more than 0");
        }
        double seconds = switch (m.group(2)) {
            case "s" -> 1;
            case "m" -> 60;
            default -> 3600;
        };
        return new Arrival(start, n / seconds);
    }

    // ------------------------------------------------------------------------------------------------ values

    static String label(Val v) {
        String s = v.nonEmptyText();
        if (s.length() > 40 || !DNS_LABEL.matcher(s).matches()) {
            throw v.error("\"" + s + "\" is not a valid name (lower-case letters, digits and '-', at most 40 characters)");
        }
        return s;
    }

    static long quantity(Val v, String resource) {
        String t = v.nonEmptyText();
        try {
            long q = Quantities.parse(resource, t);
            if (q < 0) {
                throw v.error("\"" + t + "\" is negative");
            }
            return q;
        } catch (InvalidQuantityException e) {
            throw v.error("\"" + t + "\" is not a quantity of " + resource + ": " + e.getMessage());
        }
    }

    /** {@code 4}, {@code 500m-2}, {@code 4Gi-16Gi}, or a list of quantities to choose from. */
    static Range quantityRange(Val v, String resource) {
        if (v.isList()) {
            List<Long> choices = new ArrayList<>();
            for (Val c : v.list()) {
                choices.add(quantity(c, resource));
            }
            if (choices.isEmpty()) {
                throw v.error("the list of choices is empty");
            }
            return Range.oneOf(choices);
        }
        String t = v.nonEmptyText();
        try {
            long q = Quantities.parse(resource, t);
            if (q < 0) {
                throw v.error("\"" + t + "\" is negative");
            }
            return Range.of(q);
        } catch (InvalidQuantityException notSingle) {
            for (int i = t.indexOf('-', 1); i > 0; i = t.indexOf('-', i + 1)) {
                long lo;
                long hi;
                try {
                    lo = Quantities.parse(resource, t.substring(0, i));
                    hi = Quantities.parse(resource, t.substring(i + 1));
                } catch (InvalidQuantityException e) {
                    continue;
                }
                if (lo < 0 || hi < lo) {
                    throw v.error("range \"" + t + "\" must go from a smaller to a larger amount");
                }
                return Range.between(lo, hi, step(resource, lo, hi));
            }
            throw v.error("\"" + t + "\" is not a quantity of " + resource + " or a range like "
                    + (resource.equals(ResourceNames.CPU) ? "500m-2" : resource.equals(ResourceNames.MEMORY) ? "1Gi-4Gi" : "1-8")
                    + " (" + notSingle.getMessage() + ")");
        }
    }

    private static long step(String resource, long lo, long hi) {
        long[] steps = resource.equals(ResourceNames.CPU) ? new long[] {1000, 100, 1}
                : resource.equals(ResourceNames.MEMORY) ? new long[] {GI, MI, 1} : new long[] {1};
        for (long s : steps) {
            if (lo % s == 0 && hi % s == 0) {
                return s;
            }
        }
        return 1;
    }

    /** {@code 8}, {@code 8-64}, or a list of counts. */
    static Range countRange(Val v, long min, long max) {
        if (v.isList()) {
            List<Long> choices = new ArrayList<>();
            for (Val c : v.list()) {
                choices.add(c.whole(min, max));
            }
            if (choices.isEmpty()) {
                throw v.error("the list of choices is empty");
            }
            return Range.oneOf(choices);
        }
        String t = v.nonEmptyText();
        int dash = t.indexOf('-', 1);
        try {
            if (dash < 0) {
                long n = Long.parseLong(t);
                if (n < min || n > max) {
                    throw v.error(n + " is out of range (" + min + " to " + max + ")");
                }
                return Range.of(n);
            }
            long lo = Long.parseLong(t.substring(0, dash).trim());
            long hi = Long.parseLong(t.substring(dash + 1).trim());
            if (lo < min || hi > max || hi < lo) {
                throw v.error("range \"" + t + "\" must go from a smaller to a larger number, within " + min + " to " + max);
            }
            return Range.between(lo, hi, 1);
        } catch (NumberFormatException e) {
            throw v.error("\"" + t + "\" is not a whole number or a range like 8-64");
        }
    }

    private static MinMember minMember(Val v) {
        if (v.isScalar() && v.text().endsWith("%")) {
            String t = v.text();
            try {
                int p = Integer.parseInt(t.substring(0, t.length() - 1).trim());
                if (p < 1 || p > 100) {
                    throw v.error("\"" + t + "\": a percentage of the gang's size must be 1% to 100%");
                }
                return MinMember.percent(p);
            } catch (NumberFormatException e) {
                throw v.error("\"" + t + "\" is not a percentage like 75%");
            }
        }
        return MinMember.count(countRange(v, 1, 10_000));
    }

    static DurationRange durationRange(Val v) {
        String t = v.nonEmptyText();
        int dash = t.indexOf('-');
        Duration lo;
        Duration hi;
        try {
            lo = Durations.parse("duration", dash < 0 ? t : t.substring(0, dash).trim());
            hi = dash < 0 ? lo : Durations.parse("duration", t.substring(dash + 1).trim());
        } catch (IllegalArgumentException e) {
            throw v.error("\"" + t + "\" is not a duration or a range of durations (write e.g. 90s, 2m-8m, 1m30s-5m)");
        }
        if (hi.compareTo(lo) < 0) {
            throw v.error("range \"" + t + "\" must go from a shorter to a longer duration");
        }
        return new DurationRange(lo, hi);
    }

    private static boolean onOff(Val v, boolean fallback) {
        if (v == null) {
            return fallback;
        }
        String t = v.nonEmptyText();
        return switch (t) {
            case "true", "on" -> true;
            case "false", "off" -> false;
            default -> throw v.error("\"" + t + "\" is not true or false");
        };
    }

    private static Duration positive(Val v, Duration fallback) {
        if (v == null) {
            return fallback;
        }
        Duration d = nonNegative(v, fallback);
        if (d.isZero()) {
            throw v.error("must be longer than 0");
        }
        return d;
    }

    private static Duration nonNegative(Val v, Duration fallback) {
        if (v == null) {
            return fallback;
        }
        String t = v.nonEmptyText();
        try {
            return Durations.parse("duration", t);
        } catch (IllegalArgumentException e) {
            throw v.error("\"" + t + "\" is not a duration (write e.g. 500ms, 60s, 1m30s, 2h)");
        }
    }
}
