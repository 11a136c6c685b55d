#!/bin/sh
# Python needs no compile step.
