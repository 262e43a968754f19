#!/bin/sh
cd /repo && git apply /sweep/solution/fix.patch
