package dev.muster.bench;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads figures out of Prometheus text (kube-scheduler's, the API server's and Muster's /metrics). Stateless. */
final class PromText {
    private PromText() {}

    /** Sum of a labelled counter's samples whose labels contain {@code labelPart}. */
    static double counter(String text, String name, String labelPart) {
        double sum = 0;
        Pattern p = Pattern.compile("^" + Pattern.quote(name) + "\\{([^}]*)\\} ([0-9.eE+-]+)$", Pattern.MULTILINE);
        Matcher m = p.matcher(text);
        while (m.find()) {
            if (m.group(1).contains(labelPart)) {
                sum += Double.parseDouble(m.group(2));
            }
        }
        return sum;
    }

    /** A labelled counter's samples added up by the value of label {@code labelName} (e.g. a cause or an outcome). */
    static Map<String, Double> byLabel(String text, String name, String labelName) {
        Map<String, Double> out = new TreeMap<>();
        Matcher m = Pattern.compile("^" + Pattern.quote(name) + "\\{([^}]*)\\} ([0-9.eE+-]+)$", Pattern.MULTILINE).matcher(text);
        while (m.find()) {
            out.merge(label(m.group(1), labelName), Double.parseDouble(m.group(2)), Double::sum);
        }
        return out;
    }

    /** An unlabelled sample's value ({@code labelPart} empty), else 0. */
    static double plain(String text, String name, String labelPart) {
        if (!labelPart.isEmpty()) {
            return 0;
        }
        Matcher m = Pattern.compile("^" + Pattern.quote(name) + " ([0-9.eE+-]+)$", Pattern.MULTILINE).matcher(text);
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }

    /** Mean of a histogram (sum / count) over the series whose labels contain {@code labelPart}. */
    static double mean(String text, String histogram, String labelPart) {
        double sum = counter(text, histogram + "_sum", labelPart) + plain(text, histogram + "_sum", labelPart);
        double count = counter(text, histogram + "_count", labelPart) + plain(text, histogram + "_count", labelPart);
        return count == 0 ? Double.NaN : sum / count;
    }

    /** The value of label {@code name} in a sample's label text, or "". */
    static String label(String labels, String name) {
        Matcher m = Pattern.compile("(?:^|,)" + name + "=\"([^\"]*)\"").matcher(labels);
        return m.find() ? m.group(1) : "";
    }

    /**
     * The API server's {@code apiserver_request_total} by verb, resource and subresource (codes and scopes added up), and
     * {@code apiserver_watch_events_total} by kind: what a run asks of the API server.
     */
    static Map<String, Double> apiserverRequests(String text) {
        Map<String, Double> out = new TreeMap<>();
        Matcher m = Pattern.compile("^apiserver_request_total\\{([^}]*)\\} ([0-9.eE+-]+)$", Pattern.MULTILINE).matcher(text);
        while (m.find()) {
            String labels = m.group(1);
            String key = label(labels, "verb") + " " + label(labels, "resource") + (label(labels, "subresource").isEmpty() ? "" : "/" + label(labels, "subresource"));
            out.merge(key, Double.parseDouble(m.group(2)), Double::sum);
        }
        Matcher w = Pattern.compile("^apiserver_watch_events_total\\{([^}]*)\\} ([0-9.eE+-]+)$", Pattern.MULTILINE).matcher(text);
        while (w.find()) {
            out.merge("watch-events " + label(w.group(1), "resource") + label(w.group(1), "kind"), Double.parseDouble(w.group(2)), Double::sum);
        }
        return out;
    }

    private static final Pattern PLUGIN_SAMPLE = Pattern.compile(
            "^scheduler_plugin_execution_duration_seconds_(sum|count)\\{([^}]*)\\} ([0-9.eE+-]+)$", Pattern.MULTILINE);
    private static final Pattern EXTENSION_POINT_LABEL = Pattern.compile("extension_point=\"([A-Za-z]+)\"");
    private static final Pattern PLUGIN_LABEL = Pattern.compile("plugin=\"([A-Za-z]+)\"");

    /** kube-scheduler's per-plugin PreFilter and Filter means (its plugin histograms sample about 10% of cycles), in µs. */
    static Map<String, Long> pluginMeans(String text) {
        Map<String, double[]> acc = new TreeMap<>();
        Matcher mm = PLUGIN_SAMPLE.matcher(text);
        while (mm.find()) {
            Matcher point = EXTENSION_POINT_LABEL.matcher(mm.group(2));
            Matcher plugin = PLUGIN_LABEL.matcher(mm.group(2));
            if (point.find() && plugin.find() && (point.group(1).equals("Filter") || point.group(1).equals("PreFilter"))) {
                double[] a = acc.computeIfAbsent(point.group(1) + "/" + plugin.group(1), k -> new double[2]);
                a[mm.group(1).equals("sum") ? 0 : 1] += Double.parseDouble(mm.group(3));
            }
        }
        Map<String, Long> out = new LinkedHashMap<>();
        acc.forEach((k, a) -> {
            if (a[1] > 0) {
                out.put(k, Math.round(a[0] / a[1] * 1e6));
            }
        });
        return out;
    }
}
