package dev.muster.demo.cli;

import java.util.List;

/** Rows as left-aligned columns two spaces apart, no trailing blanks; the first row is the header. Stateless. */
final class Table {
    private Table() {}

    static String of(List<String[]> rows) {
        int[] widths = new int[rows.getFirst().length];
        for (String[] r : rows) {
            for (int i = 0; i < r.length; i++) {
                widths[i] = Math.max(widths[i], r[i].length());
            }
        }
        StringBuilder sb = new StringBuilder();
        for (String[] r : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < r.length; i++) {
                line.append(r[i]).append(" ".repeat(widths[i] - r[i].length() + 2));
            }
            sb.append(line.toString().stripTrailing()).append('\n');
        }
        return sb.toString();
    }
}
