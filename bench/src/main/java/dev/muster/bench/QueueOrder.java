package dev.muster.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The order in which kube-scheduler took a batch's pods, read from its log at {@code -v=3} ("Attempting to schedule
 * pod"), and what it means for gangs: after how many of the batch's pods the first gang, and half of the gangs, had all
 * their members through a scheduling cycle, and how far apart a gang's members were (median of last − first position).
 * A gang binds only once its last member has been through a cycle, so a queue that spreads members delays its binds.
 *
 * @param pods        how many of the batch's pods kube-scheduler tried
 * @param firstWhole  pods tried when the first gang was whole (1-based)
 * @param halfWhole   pods tried when half of the gangs were whole
 * @param medianSpread median distance between a gang's first and last member in that order
 */
record QueueOrder(int pods, int firstWhole, int halfWhole, int medianSpread) {
    private static final Pattern ATTEMPT = Pattern.compile("Attempting to schedule pod\" pod=\"([^\"/]+)/p(\\d+)\"");

    /** The first attempt of each pod of {@code namespace} (named {@code p<i>}, gang {@code i / gang}) in {@code log}. */
    static QueueOrder read(Path log, String namespace, int gang) throws IOException {
        List<Integer> order = new ArrayList<>();
        java.util.Set<Integer> seen = new java.util.HashSet<>();
        try (Stream<String> lines = Files.lines(log)) {
            lines.forEach(line -> {
                Matcher m = ATTEMPT.matcher(line);
                if (m.find() && m.group(1).equals(namespace)) {
                    int i = Integer.parseInt(m.group(2));
                    if (seen.add(i)) {
                        order.add(i);
                    }
                }
            });
        }
        return of(order, gang);
    }

    /** What {@code order} (the batch's pods by index, in the order kube-scheduler first tried them) means for gangs of {@code gang}. */
    static QueueOrder of(List<Integer> order, int gang) {
        Map<Integer, Integer> tried = new HashMap<>();
        Map<Integer, int[]> span = new HashMap<>();
        List<Integer> whole = new ArrayList<>();
        for (int k = 0; k < order.size(); k++) {
            int g = order.get(k) / gang;
            int position = k;
            span.computeIfAbsent(g, x -> new int[] {position, position})[1] = k;
            if (tried.merge(g, 1, Integer::sum) == gang) {
                whole.add(k + 1);
            }
        }
        List<Integer> spreads = span.values().stream().map(s -> s[1] - s[0]).sorted().toList();
        return new QueueOrder(order.size(), whole.isEmpty() ? -1 : whole.getFirst(), whole.isEmpty() ? -1 : whole.get(whole.size() / 2),
                spreads.isEmpty() ? -1 : spreads.get(spreads.size() / 2));
    }

    @Override
    public String toString() {
        int n = pods;
        return String.format(Locale.ROOT, "kube-scheduler's queue order: first gang whole after %d of %d pods (%.0f%%), half of the gangs after %d (%.0f%%),"
                + " a gang's members %d apart (median)", firstWhole, n, 100.0 * firstWhole / n, halfWhole, 100.0 * halfWhole / n, medianSpread);
    }
}
