#!/bin/sh
# PHP needs no compile step.
