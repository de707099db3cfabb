package dev.muster.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * What the docs point a reader to is there: every relative link of the README and the docs names a file of the
 * repository (and a heading of it, for {@code #anchor}), every reference to a section by name (a document,
 * {@code docs/<name>.md} or the chart's README, then a comma and the quoted section name) in the docs, the charts (their
 * install notes too) and the code names a heading of that document, and nothing points into a folder a user's clone does not have.
 */
class DocLinksTest {
    private static final Path ROOT = DocCommands.ROOT;
    private static final List<String> DOCS = DocCommands.DOCS;
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern SECTION = Pattern.compile("(docs/\\w+\\.md|charts/muster/README\\.md),\\s+\"([^\"]+)\"");

    @TestFactory
    Stream<DynamicTest> everyRelativeLinkResolves() throws IOException {
        List<DynamicTest> tests = new ArrayList<>();
        for (String doc : DOCS) {
            Path file = ROOT.resolve(doc);
            Matcher m = LINK.matcher(Files.readString(file));
            while (m.find()) {
                String target = m.group(1);
                if (target.matches("[a-z]+:.*")) {
                    continue; // a URL
                }
                tests.add(DynamicTest.dynamicTest(doc + " → " + target, () -> resolves(file, target)));
            }
        }
        assertThat(tests).hasSizeGreaterThan(10);
        return tests.stream();
    }

    private static void resolves(Path doc, String target) throws IOException {
        int hash = target.indexOf('#');
        Path file = hash == 0 ? doc : doc.getParent().resolve(hash < 0 ? target : target.substring(0, hash)).normalize();
        assertThat(file).as("%s links %s", doc, target).exists();
        assertThat(file.startsWith(ROOT)).as("%s links %s inside the repository", doc, target).isTrue();
        if (hash >= 0) {
            assertThat(anchors(file)).as("%s links %s: a heading of %s", doc, target, file.getFileName()).contains(target.substring(hash + 1));
        }
    }

    @TestFactory
    Stream<DynamicTest> everySectionNamedByQuoteExists() throws IOException {
        List<DynamicTest> tests = new ArrayList<>();
        try (Stream<Path> files = Files.walk(ROOT)) {
            for (Path f : files.filter(DocLinksTest::mentionsSections).toList()) {
                Matcher m = SECTION.matcher(Files.readString(f));
                while (m.find()) {
                    String doc = m.group(1);
                    String section = m.group(2).replaceAll("\\s+", " ");
                    tests.add(DynamicTest.dynamicTest(ROOT.relativize(f) + " → " + doc + ", \"" + section + "\"",
                            () -> assertThat(headings(ROOT.resolve(doc))).as("a heading of %s starts with \"%s\"", doc, section)
                                    .anyMatch(h -> h.startsWith(section))));
                }
            }
        }
        return tests.stream();
    }

    @TestFactory
    Stream<DynamicTest> nothingPointsOutsideTheRepository() {
        return DOCS.stream().map(doc -> DynamicTest.dynamicTest(doc, () -> assertThat(Files.readString(ROOT.resolve(doc)))
                .as("%s points into ../shared, which a user's clone does not have", doc).doesNotContain("shared/fixtures", "../shared", "shared/k8s")));
    }

    private static boolean mentionsSections(Path f) {
        String s = f.toString();
        return Files.isRegularFile(f) && !s.contains("/target/") && !s.contains("/.git/")
                && (s.endsWith(".java") || s.endsWith(".md") || s.endsWith(".yaml") || s.endsWith(".txt") || s.endsWith("Dockerfile"));
    }

    private static List<String> headings(Path doc) throws IOException {
        return Files.readAllLines(doc).stream().filter(l -> l.startsWith("#")).map(l -> l.replaceFirst("^#+\\s*", "").replace("`", "")).toList();
    }

    /** GitHub's anchors: lower case, punctuation but hyphens and underscores dropped, spaces to hyphens. */
    private static List<String> anchors(Path doc) throws IOException {
        return headings(doc).stream().map(h -> h.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-')).toList();
    }
}
