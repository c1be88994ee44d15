import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  assignTemplateNames,
  templateNameForImage,
  templateNameProblem,
  prefixProblem,
  MAX_TEMPLATE_NAME_LENGTH,
} from '../../src/services/templates/naming.js';

test('canonical SWE-Gym images get a readable name without a hash', () => {
  assert.equal(templateNameForImage('xingyaoww/sweb.eval.x86_64.getmoto_s_moto-6920:latest'), 'swegym-getmoto_s_moto-6920');
  assert.equal(templateNameForImage('xingyaoww/sweb.eval.x86_64.getmoto_s_moto-6920:latest', 'team-a'), 'team-a-getmoto_s_moto-6920');
});

test('lossy images (other owner, tag, case, characters) carry a hash and stay valid', () => {
  const legacy = templateNameForImage('swebench/sweb.eval.x86_64.pvlib_1776_pvlib-python-1234:latest');
  assert.match(legacy, /^swegym-pvlib_1776_pvlib-python-1234-[0-9a-f]{8}$/);
  const upper = templateNameForImage('xingyaoww/sweb.eval.x86_64.Foo_s_Bar-1:latest');
  const lower = templateNameForImage('xingyaoww/sweb.eval.x86_64.foo_s_bar-1:latest');
  assert.notEqual(upper, lower);
  for (const image of ['docker.io/library/python:3.11', 'ghcr.io/a/b/c:v1.2', 'UPPER/Case:TAG', 'x', '::::']) {
    const n = templateNameForImage(image);
    assert.equal(templateNameProblem(n), undefined, `${image} → ${n}`);
  }
});

test('names are deterministic and at most 63 characters; truncation collisions are resolved by the hash', () => {
  const long = 'x'.repeat(80);
  const a = `xingyaoww/sweb.eval.x86_64.${long}-1:latest`;
  const b = `xingyaoww/sweb.eval.x86_64.${long}-2:latest`;
  const na = templateNameForImage(a);
  const nb = templateNameForImage(b);
  assert.ok(na.length <= MAX_TEMPLATE_NAME_LENGTH);
  assert.notEqual(na, nb, 'same truncated slug, different images');
  assert.equal(templateNameForImage(a), na);
  assert.equal(templateNameProblem(na), undefined);
});

test('assignTemplateNames is injective over 300 realistic images and stable when the list grows', () => {
  const images: string[] = [];
  for (let i = 0; i < 280; i++) images.push(`xingyaoww/sweb.eval.x86_64.repo${i % 17}_s_proj${i % 17}-${1000 + i}:latest`);
  for (let i = 0; i < 20; i++) images.push(`swebench/sweb.eval.x86_64.pvlib_1776_pvlib-python-${i}:latest`);
  // Force collisions: two images that sanitise to the same slug.
  images.push('xingyaoww/sweb.eval.x86_64.a.b-1:latest', 'xingyaoww/sweb.eval.x86_64.a-b-1:latest');
  const names = assignTemplateNames(images);
  const values = [...names.values()];
  assert.equal(new Set(values).size, images.length);
  for (const v of values) assert.equal(templateNameProblem(v), undefined, v);
  const grown = assignTemplateNames([...images, 'xingyaoww/sweb.eval.x86_64.new_s_one-1:latest']);
  for (const image of images) assert.equal(grown.get(image), names.get(image), 'existing names never change when images are added');
});

test('previous names win when valid and under the same prefix; a new prefix renames', () => {
  const image = 'xingyaoww/sweb.eval.x86_64.getmoto_s_moto-6920:latest';
  const prev = new Map([[image, 'swegym-custom-name']]);
  assert.equal(assignTemplateNames([image], 'swegym', prev).get(image), 'swegym-custom-name');
  assert.equal(assignTemplateNames([image], 'other', prev).get(image), 'other-getmoto_s_moto-6920');
  assert.equal(assignTemplateNames([image], 'swegym', new Map([[image, 'Bad:Name']])).get(image), 'swegym-getmoto_s_moto-6920');
});

test('prefix and name validation explain the problem', () => {
  assert.match(prefixProblem('Bad_Prefix') ?? '', /lower-case/);
  assert.match(prefixProblem('') ?? '', /empty/);
  assert.match(prefixProblem('a'.repeat(40)) ?? '', /at most/);
  assert.equal(prefixProblem('team_a-1'), undefined);
  assert.match(templateNameProblem('name:tag') ?? '', /lower-case/);
  assert.match(templateNameProblem('ns/name') ?? '', /lower-case/);
  assert.throws(() => templateNameForImage('x', 'BAD'), /invalid template prefix/);
});
