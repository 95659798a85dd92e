#!/bin/sh
echo dbms
