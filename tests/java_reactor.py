#!/usr/bin/env python3
"""consumers/java-common/reactor.py: the module POMs it writes for the Java families' batch setup.

    tests/java_reactor.py SOURCE_DIR

Debezium's POM with a 1.x and a 2.x module: exact coordinates, properties and dependencies (the
dbz.line profiles resolved per module as -Ddbz.line would), source and resource folders kept in the
family's folder; every Java family's POM gives a module with its properties set; what reactor.py
cannot reproduce (another activation kind, other profile content) and bad arguments exit 2.
"""
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

SRC = os.path.abspath(sys.argv[1])
REACTOR = os.path.join(SRC, "consumers", "java-common", "reactor.py")
Q = "{http://maven.apache.org/POM/4.0.0}"


def run(*args):
    return subprocess.run([sys.executable, REACTOR] + list(args), capture_output=True, text=True)


def deps(root):
    return [(d.findtext(Q + "groupId"), d.findtext(Q + "artifactId"), d.findtext(Q + "version"))
            for d in root.findall(Q + "dependencies/" + Q + "dependency")]


def check(cond, what):
    if not cond:
        sys.exit("FAIL: " + what)


with tempfile.TemporaryDirectory() as tmp:
    fam = os.path.join(SRC, "consumers", "debezium")
    out = os.path.join(tmp, "dbz")
    r = run(os.path.join(fam, "pom.xml"), out, "--module", "v0", "dbz.version=1.2.5.Final", "dbz.line=1",
            "cdch.out=/c/1.2.5", "--module", "v1", "dbz.version=2.7.4.Final", "dbz.line=2", "cdch.out=/c/2.7.4")
    check(r.returncode == 0, "debezium: exit %d: %s" % (r.returncode, r.stderr))
    agg = ET.parse(os.path.join(out, "pom.xml")).getroot()
    check(agg.findtext(Q + "packaging") == "pom", "aggregator packaging")
    check([m.text for m in agg.findall(Q + "modules/" + Q + "module")] == ["v0", "v1"], "aggregator modules")
    check(agg.findtext(Q + "artifactId") == "debezium-adapter-reactor", "aggregator artifactId")
    common = [("io.debezium", "debezium-api", "${dbz.version}"), ("io.debezium", "debezium-embedded", "${dbz.version}"),
              ("io.debezium", "debezium-connector-mysql", "${dbz.version}")]
    want = {
        "v0": ("1.2.5.Final", "1", "/c/1.2.5", common + [("org.slf4j", "slf4j-simple", "1.7.36")]),
        "v1": ("2.7.4.Final", "2", "/c/2.7.4", common + [("io.debezium", "debezium-storage-file", "${dbz.version}"),
                                                          ("org.slf4j", "slf4j-simple", "1.7.36")]),
    }
    for mid, (ver, line, cout, wdeps) in want.items():
        text = open(os.path.join(out, mid, "pom.xml")).read()
        root = ET.fromstring(text)
        check(root.findtext(Q + "artifactId") == "debezium-adapter-" + mid, mid + ": artifactId")
        props = {c.tag[len(Q):]: c.text for c in root.find(Q + "properties")}
        check(props["dbz.version"] == ver and props["dbz.line"] == line and props["cdch.out"] == cout,
              mid + ": properties %r" % props)
        check(props["maven.compiler.release"] == "17", mid + ": the family's other properties kept")
        check(deps(root) == wdeps, mid + ": dependencies %r" % deps(root))
        check(root.find(Q + "profiles") is None, mid + ": profiles left")
        check("${project.basedir}" not in text, mid + ": ${project.basedir} left")
        build = root.find(Q + "build")
        check(build.findtext(Q + "directory") == "${cdch.out}/target", mid + ": build directory")
        check(build.findtext(Q + "sourceDirectory") == fam + "/src/main/java", mid + ": sourceDirectory")
        check(build.findtext(Q + "resources/" + Q + "resource/" + Q + "directory") == fam + "/src/main/resources",
              mid + ": resources")
        roots = [e.text for e in build.iter(Q + "root")]
        check(roots == [fam + "/src/main/java", fam + "/java-common/src/main/java", fam + "/java-common/src/debezium/java"],
              mid + ": source roots %r" % roots)

    # every Java family's POM gives a module with its properties
    for family, props in (("mysql-binlog-connector-java", ["mbcj.group=com.zendesk", "mbcj.version=0.27.6"]),
                          ("canal", ["canal.version=1.1.5"]), ("maxwell", ["maxwell.version=1.22.6"])):
        o = os.path.join(tmp, family)
        r = run(os.path.join(SRC, "consumers", family, "pom.xml"), o, "--module", "v0", *props, "cdch.out=/c/x")
        check(r.returncode == 0, "%s: exit %d: %s" % (family, r.returncode, r.stderr))
        root = ET.parse(os.path.join(o, "v0", "pom.xml")).getroot()
        got = {c.tag[len(Q):]: c.text for c in root.find(Q + "properties")}
        for p in props:
            k, v = p.split("=", 1)
            check(got.get(k) == v, "%s: %s is %r" % (family, k, got.get(k)))

    # what a module cannot reproduce is refused
    bad = os.path.join(tmp, "bad.xml")
    with open(bad, "w") as f:
        f.write('<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>'
                '<groupId>g</groupId><artifactId>a</artifactId><version>1</version><profiles><profile><id>j</id>'
                '<activation><jdk>17</jdk></activation></profile></profiles></project>')
    r = run(bad, os.path.join(tmp, "b1"), "--module", "v0", "x=1")
    check(r.returncode == 2 and "profile j: only <activation><property> is supported" in r.stderr,
          "jdk activation: %d %s" % (r.returncode, r.stderr))
    with open(bad, "w") as f:
        f.write('<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>'
                '<groupId>g</groupId><artifactId>a</artifactId><version>1</version><profiles><profile><id>p</id>'
                '<activation><property><name>x</name><value>1</value></property></activation>'
                '<build/></profile></profiles></project>')
    r = run(bad, os.path.join(tmp, "b2"), "--module", "v0", "x=1")
    check(r.returncode == 2 and "profile p: only <dependencies> is supported (has build)" in r.stderr,
          "profile build: %d %s" % (r.returncode, r.stderr))
    pom = os.path.join(fam, "pom.xml")
    r = run(pom, os.path.join(tmp, "b3"), "--module", "v0", "--module", "v0")
    check(r.returncode == 2 and "module ids repeat" in r.stderr, "repeated ids: %s" % r.stderr)
    r = run(pom, os.path.join(tmp, "b4"), "--module", "v0", "dbz.version")
    check(r.returncode == 2 and "is not PROP=VALUE" in r.stderr, "no '=': %s" % r.stderr)
    r = run(pom, os.path.join(tmp, "b5"))
    check(r.returncode == 2 and "usage:" in r.stderr, "no module: %s" % r.stderr)
print("java_reactor: ok")
