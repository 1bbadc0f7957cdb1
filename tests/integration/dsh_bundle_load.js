// Loads a DeepSeek Harness bundle the way `dsh` composes a profile, with the harness's own
// packages (from the npm registry, scripts/setup_plugin_hosts.sh): the bundle's dsh.bundle.patch
// applied over an empty entry list by cordis-plugin-include's applyEntryPatches, each inserted
// row's module imported by its bare name from the profile folder (where `dsh plugin add` puts it)
// and unwrapped by cordis-plugin-loader, then mounted on a Cordis context beside dsh-skill's
// SkillRegistry (the ctx.skills service). Prints the skills the registry then lists, as JSON.
// Run from a profile folder whose node_modules holds the bundle and those packages:
//   node load.mjs <bundle package name>   (this file, copied as an ES module)
import { readFileSync, realpathSync } from "node:fs";
import path from "node:path";
import yaml from "js-yaml";
import { Context } from "@deepseek-ai/cordis";
import { applyEntryPatches } from "@deepseek-ai/cordis-plugin-include";
import { Loader } from "@deepseek-ai/cordis-plugin-loader";
import { SkillRegistry } from "@deepseek-ai/dsh-skill";

const bundle = process.argv[2];
const dir = realpathSync(path.join(process.cwd(), "node_modules", bundle));
const manifest = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8"));
const patchFile = manifest.dsh?.bundle?.patch;
if (patchFile === undefined) throw new Error(`${bundle} declares no dsh.bundle.patch: dsh adds it as a plain dependency`);
const warnings = [];
const entries = applyEntryPatches([], yaml.load(readFileSync(path.join(dir, patchFile), "utf8")), (...args) => warnings.push(args));
if (warnings.length || entries.length === 0) throw new Error(`the patch layer applies to no row: ${JSON.stringify(warnings)}`);

const ctx = new Context();
await ctx.plugin(SkillRegistry);
for (const entry of entries) {
  const plugin = Loader.prototype.unwrapExports(await import(entry.name));
  await ctx.plugin(plugin, entry.config);
}
const skills = await ctx.skills.list();
const loaded = await Promise.all(skills.map((s) => ctx.skills.get(s.name)));
console.log(JSON.stringify({ entries, skills: loaded.map(({ name, description, path, content }) => ({ name, description, path, content })) }));
