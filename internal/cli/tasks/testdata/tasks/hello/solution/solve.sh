#!/bin/sh
echo hello > hello.txt
