package dev.muster.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.common.testing.ConsoleRun;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.xpath.XPathConstants;
import javax.xml.xpath.XPathFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.NodeList;

/**
 * {@code mvn … -Pdemo} runs {@link Main} through the exec plugin: a run that fails (exit 1) or is asked for badly (exit 2)
 * must fail the build, so that a script or CI that runs the demo sees it.
 */
class DemoUnderMavenTest {
    @TempDir
    Path startedIn;

    @Test
    void aBadScenarioExitsTwoAndTheDemoProfileTakesOnlyZeroForSuccess() throws Exception {
        ConsoleRun bad = ConsoleRun.of((out, err) -> Main.run(List.of("demo", "--scenario", "no-such-scenario"), Map.of(), startedIn, out, err));
        assertThat(bad.exit()).isEqualTo(2);

        Document pom = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(DocCommands.ROOT.resolve("demo/pom.xml").toFile());
        var xpath = XPathFactory.newInstance().newXPath();
        NodeList executions = (NodeList) xpath.evaluate("//profile[id='demo']//plugin[artifactId='exec-maven-plugin']//execution", pom, XPathConstants.NODESET);
        assertThat(executions.getLength()).as("the demo profile runs the demo with the exec plugin").isEqualTo(1);
        NodeList codes = (NodeList) xpath.evaluate(".//successCodes/successCode", executions.item(0), XPathConstants.NODESET);
        List<String> success = new ArrayList<>();
        for (int i = 0; i < codes.getLength(); i++) {
            success.add(codes.item(i).getTextContent().strip());
        }
        assertThat(success).as("exit codes the build takes for success (none listed: only 0)").isSubsetOf("0");
    }
}
