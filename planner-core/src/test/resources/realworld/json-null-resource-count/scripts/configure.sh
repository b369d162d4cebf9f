#!/bin/sh
echo "configuring node $1"
yum install -y chrony
