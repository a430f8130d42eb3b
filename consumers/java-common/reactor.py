#!/usr/bin/env python3
"""reactor.py - one Maven reactor that builds a Java adapter against several pinned versions.

    reactor.py FAMILY_POM OUT_DIR --module ID PROP=VALUE... [--module ID PROP=VALUE...]...

Writes OUT_DIR/ID/pom.xml for each module and OUT_DIR/pom.xml, an aggregator listing them, so that
one `mvn -f OUT_DIR/pom.xml ...` (one JVM, Maven's plugins loaded and compiled once) builds what a
run of `mvn -f FAMILY_POM -DPROP=VALUE...` builds for each module. A module's POM is the family's
with:
  * artifactId  FAMILY-ARTIFACT-ID (a reactor needs each module's coordinates distinct);
  * properties  each PROP set to VALUE (added when the family POM has no such property);
  * profiles    resolved: a profile activated by <property><name>P</name><value>V</value></property>
                is active when the module's P is V (its own PROP=VALUE, else the POM's property),
                as `-DP=V` activates it; an active profile's dependencies join the module's, and
                the profiles are removed. Any other profile content or activation is refused
                (exit 2), rather than built differently from the one-version build;
  * ${project.basedir}  the family folder, so source roots stay where they are; the standard
                source and resource folders (src/main/java, src/main/resources) are named as the
                family's when its POM does not name them.
Standard library only. Exit status 0, or 2 with a message on stderr.
"""
import os
import re
import sys
import xml.etree.ElementTree as ET

NS = "http://maven.apache.org/POM/4.0.0"
Q = "{%s}" % NS


def fail(msg):
    sys.stderr.write("reactor.py: %s\n" % msg)
    sys.exit(2)


def parse_args(argv):
    if argv[:1] in (["--help"], ["-h"]):
        sys.stdout.write(__doc__)
        sys.exit(0)
    if len(argv) < 4 or argv[2] != "--module":
        fail("usage: reactor.py FAMILY_POM OUT_DIR --module ID PROP=VALUE... [--module ID ...]")
    pom, out, rest = argv[0], argv[1], argv[2:]
    modules = []
    for a in rest:
        if a == "--module":
            modules.append([None, {}])
        elif modules[-1][0] is None:
            if not re.fullmatch(r"[A-Za-z0-9_.-]+", a):
                fail("module id %r: letters, digits, '_', '.', '-' only" % a)
            modules[-1][0] = a
        elif "=" in a:
            k, v = a.split("=", 1)
            modules[-1][1][k] = v
        else:
            fail("%r is not PROP=VALUE" % a)
    if any(m[0] is None for m in modules):
        fail("--module without an id")
    ids = [m[0] for m in modules]
    if len(set(ids)) != len(ids):
        fail("module ids repeat: %s" % " ".join(ids))
    return pom, out, modules


def text_of(el, tag):
    c = el.find(Q + tag)
    return None if c is None or c.text is None else c.text.strip()


def profile_active(profile, props, pomprops, pom):
    act = profile.find(Q + "activation")
    kinds = [c.tag for c in act] if act is not None else []
    if kinds != [Q + "property"]:
        fail("%s: profile %s: only <activation><property> is supported" % (pom, text_of(profile, "id")))
    prop = act.find(Q + "property")
    name, value = text_of(prop, "name"), text_of(prop, "value")
    if name is None or value is None or name.startswith("!"):
        fail("%s: profile %s: the activation needs a <name> and a <value>" % (pom, text_of(profile, "id")))
    have = props.get(name, pomprops.get(name))
    return have == value


def module_pom(pom, family_dir, mid, props):
    tree = ET.parse(pom)
    root = tree.getroot()
    if root.tag != Q + "project":
        fail("%s: not a Maven POM (4.0.0)" % pom)
    art = root.find(Q + "artifactId")
    art.text = "%s-%s" % (art.text.strip(), mid)
    pprops = root.find(Q + "properties")
    if pprops is None:
        pprops = ET.SubElement(root, Q + "properties")
    pomprops = {c.tag[len(Q):]: (c.text or "").strip() for c in pprops}
    for k, v in props.items():
        el = pprops.find(Q + k)
        if el is None:
            el = ET.SubElement(pprops, Q + k)
        el.text = v
    profiles = root.find(Q + "profiles")
    if profiles is not None:
        deps = root.find(Q + "dependencies")
        if deps is None:
            deps = ET.SubElement(root, Q + "dependencies")
        for p in profiles.findall(Q + "profile"):
            extra = [c.tag for c in p if c.tag not in (Q + "id", Q + "activation", Q + "dependencies")]
            if extra:
                fail("%s: profile %s: only <dependencies> is supported (has %s)" %
                     (pom, text_of(p, "id"), ", ".join(t[len(Q):] for t in extra)))
            if profile_active(p, props, pomprops, pom):
                for d in p.findall(Q + "dependencies/" + Q + "dependency"):
                    deps.append(d)
        root.remove(profiles)
    # the standard source and resource folders are the family's, not the module's
    build = root.find(Q + "build")
    if build is None:
        build = ET.SubElement(root, Q + "build")
    if build.find(Q + "sourceDirectory") is None:
        ET.SubElement(build, Q + "sourceDirectory").text = "${project.basedir}/src/main/java"
    if build.find(Q + "resources") is None:
        res = ET.SubElement(ET.SubElement(build, Q + "resources"), Q + "resource")
        ET.SubElement(res, Q + "directory").text = "${project.basedir}/src/main/resources"
    for el in root.iter():
        if el.text and "${project.basedir}" in el.text:
            el.text = el.text.replace("${project.basedir}", family_dir)
    return tree


def main(argv):
    pom, out, modules = parse_args(argv)
    if not os.path.isfile(pom):
        fail("no POM %s" % pom)
    family_dir = os.path.dirname(os.path.abspath(pom))
    ET.register_namespace("", NS)
    ET.register_namespace("xsi", "http://www.w3.org/2001/XMLSchema-instance")
    try:
        family = ET.parse(pom).getroot()
    except ET.ParseError as e:
        fail("%s: %s" % (pom, e))
    names = []
    for mid, props in modules:
        d = os.path.join(out, mid)
        os.makedirs(d, exist_ok=True)
        module_pom(pom, family_dir, mid, props).write(os.path.join(d, "pom.xml"), encoding="UTF-8",
                                                       xml_declaration=True)
        names.append(mid)
    agg = ET.Element(Q + "project")
    for tag, val in (("modelVersion", "4.0.0"), ("groupId", text_of(family, "groupId") or "cdch"),
                     ("artifactId", (text_of(family, "artifactId") or "adapter") + "-reactor"),
                     ("version", "1"), ("packaging", "pom")):
        ET.SubElement(agg, Q + tag).text = val
    mods = ET.SubElement(agg, Q + "modules")
    for n in names:
        ET.SubElement(mods, Q + "module").text = n
    ET.ElementTree(agg).write(os.path.join(out, "pom.xml"), encoding="UTF-8", xml_declaration=True)


if __name__ == "__main__":
    main(sys.argv[1:])
