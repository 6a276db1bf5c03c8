package org.smsgw.agent.core;

import java.io.File;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.runner.Description;
import org.junit.runner.JUnitCore;
import org.junit.runner.notification.Failure;
import org.junit.runner.notification.RunListener;

/**
 * Runs every *Test class under the classes folder and ends with one JSON line of totals, which
 * scripts/junit-summary.js records for `make test`'s closing line.
 */
public final class JvmTests {
    public static void main(String[] args) throws Exception {
        File root = new File(args[0]);
        List<String> names = new ArrayList<String>();
        collect(root, root, names);
        Collections.sort(names);
        List<Class<?>> classes = new ArrayList<Class<?>>();
        for (String name : names) classes.add(Class.forName(name));
        final int[] counts = new int[4]; // passed, failed, skipped, failures outside a test
        JUnitCore core = new JUnitCore();
        core.addListener(new RunListener() {
            private boolean failed;
            private boolean skipped;

            @Override
            public void testStarted(Description d) {
                failed = false;
                skipped = false;
            }

            @Override
            public void testFailure(Failure f) {
                System.out.println("FAIL " + f.getDescription().getDisplayName());
                System.out.println(f.getTrace());
                // A class that cannot start (its @BeforeClass failed) is one failure with no test.
                if (f.getDescription().isTest()) failed = true; else counts[3]++;
            }

            @Override
            public void testAssumptionFailure(Failure f) {
                skipped = true;
            }

            @Override
            public void testIgnored(Description d) {
                counts[2]++;
            }

            @Override
            public void testFinished(Description d) {
                if (skipped) {
                    counts[2]++;
                } else if (failed) {
                    counts[1]++;
                } else {
                    counts[0]++;
                    System.out.println("ok   " + d.getDisplayName());
                }
            }
        });
        core.run(classes.toArray(new Class<?>[0]));
        int failed = counts[1] + counts[3];
        System.out.println("{\"passed\":" + counts[0] + ",\"failed\":" + failed + ",\"skipped\":" + counts[2] + "}");
        System.exit(failed > 0 ? 1 : 0);
    }

    private static void collect(File root, File dir, List<String> names) {
        File[] files = dir.listFiles();
        if (files == null) return;
        for (File f : files) {
            if (f.isDirectory()) {
                collect(root, f, names);
            } else if (f.getName().endsWith("Test.class")) {
                String rel = root.toURI().relativize(f.toURI()).getPath();
                names.add(rel.substring(0, rel.length() - ".class".length()).replace('/', '.'));
            }
        }
    }
}
