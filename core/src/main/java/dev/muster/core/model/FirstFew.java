package dev.muster.core.model;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;

/** Long lists in messages and logs: the first few items, then how many more ("a, b, c and 4 more"). */
public final class FirstFew {
    private FirstFew() {
    }

    /** Up to {@code limit} of {@code items} joined by ", ", then " and N more" for the rest. */
    public static String of(Collection<?> items, int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, not " + limit);
        }
        List<Object> shown = new ArrayList<>(Math.min(limit, items.size()));
        for (Iterator<?> it = items.iterator(); shown.size() < limit && it.hasNext(); ) {
            shown.add(it.next());
        }
        return shown(shown, items.size());
    }

    /** {@code shown} joined by ", ", then " and N more" for those of the {@code total} not shown. */
    public static String shown(List<?> shown, int total) {
        StringBuilder out = new StringBuilder();
        for (Object o : shown) {
            out.append(out.isEmpty() ? "" : ", ").append(o);
        }
        return total <= shown.size() ? out.toString() : out.append(" and ").append(total - shown.size()).append(" more").toString();
    }
}
